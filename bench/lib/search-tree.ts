/**
 * The search benchmark's tree: about 30,000 files, like a real monorepo checkout. Eight copies
 * of this repository's own TypeScript (src, tests, bench) in four packages each, a
 * `node_modules` of real JavaScript, and a `target/` of build output that `.gitignore` lists,
 * plus a nested `.gitignore`, a `.ignore` and hidden files. Built once per version under the
 * temp dir and reused.
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const VERSION = 1;
const root = join(import.meta.dir, "..", "..");

export interface SearchTree {
  readonly dir: string;
  /** Files in the tree, all of them. */
  readonly files: number;
}

function filesUnder(dir: string, filter: (path: string) => boolean): string[] {
  const out: string[] = [];
  const stack = [dir];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    for (const entry of readdirSync(next, { withFileTypes: true })) {
      const path = join(next, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile() && filter(path)) out.push(path);
    }
  }
  return out.sort();
}

/** Builds (or reuses) the tree and returns where it is. */
export function searchTree(): SearchTree {
  const dir = join(tmpdir(), `dsh-bench-search-tree-v${VERSION}`);
  const marker = join(dir, ".complete");
  if (existsSync(marker)) return { dir, files: Number(readFileSync(marker, "utf8")) };
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  let files = 0;
  const put = (path: string, text: string | Uint8Array) => {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
    files++;
  };
  const sources = ["src", "tests", "bench"].flatMap((top) =>
    filesUnder(join(root, top), (path) => path.endsWith(".ts")),
  );
  const texts = sources.map((path) => ({ rel: relative(root, path), text: readFileSync(path) }));
  for (let copy = 0; copy < 8; copy++) {
    for (let pkg = 0; pkg < 4; pkg++) {
      for (const { rel, text } of texts)
        put(join(temp, `app${copy}`, "packages", `p${pkg}`, rel), text);
    }
  }
  const modules = filesUnder(
    join(root, "node_modules"),
    (path) => /\.(js|mjs|cjs|ts|json|md)$/.test(path) && statSync(path).size < 512 * 1024,
  );
  for (const path of modules.slice(0, 5000))
    put(join(temp, "node_modules", relative(join(root, "node_modules"), path)), readFileSync(path));
  // Build output the repository ignores: what rg skips and a naive search floods the model with.
  const object = Buffer.from(`${"fn build_step() { let x = 42; /* generated */ }\n".repeat(40)}`);
  for (let i = 0; i < 16_000; i++)
    put(join(temp, "target", "debug", `deps${i % 64}`, `unit${i}.rs`), object);
  put(join(temp, ".gitignore"), "target/\n*.log\n/app7/packages/p3/bench/\n");
  put(join(temp, "app0", ".gitignore"), "packages/p1/tests/\n!packages/p1/tests/acp/\n");
  put(join(temp, "app1", ".ignore"), "packages/p2/\n");
  put(join(temp, "build.log"), "error: build_step failed\n");
  put(join(temp, ".hidden", "notes.ts"), "export const hidden = 'build_step';\n");
  mkdirSync(join(temp, ".git", "info"), { recursive: true });
  writeFileSync(join(temp, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(temp, ".git", "info", "exclude"), "app6/packages/p0/src/exec/\n");
  writeFileSync(join(temp, ".complete"), String(files));
  rmSync(dir, { recursive: true, force: true });
  renameSync(temp, dir);
  return { dir, files };
}
