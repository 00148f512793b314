/**
 * What every command pays before its first line runs. A bundle links each builtin module its
 * code imports statically, whichever command runs, so `dsh acp` would load the piped chat's
 * `node:readline` before answering `initialize`. A builtin only some commands need is imported
 * where it is used (`await import("node:...")`, or a global such as `crypto.randomUUID`).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

/** The modules a bundle's top-level `import` statements name, sorted. */
function linkedModules(code: string): string[] {
  const specifiers = [...code.matchAll(/^import\s+(?:[^;"]*?\s+from\s+)?"([^"]+)";?$/gm)];
  return [...new Set(specifiers.map((match) => match[1] ?? ""))].sort();
}

test("the bundle links only the builtins start-up needs: config and logs (fs, os, path)", async () => {
  const result = await Bun.build({
    entrypoints: [join(root, "index.ts")],
    target: "bun",
    format: "esm",
  });
  expect(result.logs.filter((log) => log.level === "error")).toEqual([]);
  const [bundle] = result.outputs;
  expect(bundle).toBeDefined();
  const code = (await bundle?.text()) ?? "";
  expect(linkedModules(code)).toEqual(["fs", "fs/promises", "os", "path"]);
});

test("the check sees every form of static import, so a new heavy builtin cannot slip past it", () => {
  const code = [
    'import { readFileSync } from "fs";',
    'import * as readline from "readline";',
    'import crypto from "crypto";',
    'import "url";',
    'const later = await import("worker_threads");',
    '  import { nested } from "net";',
  ].join("\n");
  expect(linkedModules(code)).toEqual(["crypto", "fs", "readline", "url"]);
});
