/**
 * What every command pays before its first line runs. The executable is split into chunks
 * (`scripts/build.ts`): a chunk links each builtin module its code imports statically, and so do
 * the chunks it imports statically, before any of it runs. A builtin only some of a chunk's
 * commands need is imported where it is used (`await import("node:...")`, or a global such as
 * `crypto.randomUUID`), and a command's own modules are a chunk of their own (`await import()`
 * in `index.ts`).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

/** The modules a chunk's top-level `import` statements name, sorted. */
function linkedModules(code: string): string[] {
  const specifiers = [...code.matchAll(/^import\s*(?:[^;"]*?\s+from\s+)?"([^"]+)";?$/gm)];
  return [...new Set(specifiers.map((match) => match[1] ?? ""))].sort();
}

/** The split bundle as the executable holds it: each chunk's code by its name. */
async function chunks(): Promise<Map<string, string>> {
  const result = await Bun.build({
    entrypoints: [join(root, "index.ts")],
    target: "bun",
    format: "esm",
    splitting: true,
    naming: { chunk: "[name]-[hash].[ext]" },
  });
  expect(result.logs.filter((log) => log.level === "error")).toEqual([]);
  const code = new Map<string, string>();
  for (const output of result.outputs) code.set(output.path, await output.text());
  return code;
}

/** What loading `start` links: every chunk it imports statically, and their builtins. */
function linkedBy(code: Map<string, string>, start: string) {
  const builtins = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const module of linkedModules(code.get(name) ?? "")) {
      if (module.startsWith("./")) visit(module);
      else builtins.add(module);
    }
  };
  visit(start);
  return { chunks: [...seen].sort(), builtins: [...builtins].sort() };
}

/** The builtins linked when `start` loads: its own and those of every chunk it imports. */
function builtinsLinkedBy(code: Map<string, string>, start: string): string[] {
  return linkedBy(code, start).builtins;
}

test("the entry links no builtin: --version, --help and usage errors load nothing more", async () => {
  expect(builtinsLinkedBy(await chunks(), "./index.js")).toEqual([]);
});

test("dsh acp links only path before its first message: the config is read through Bun.file, fs and os wait", async () => {
  const code = await chunks();
  const acp = [...code.keys()].filter((name) => name.startsWith("./acp-"));
  expect(acp).toHaveLength(1);
  expect(builtinsLinkedBy(code, acp[0] ?? "")).toEqual(["path"]);
});

test("a new session's answer loads the session store's chunk, which links the file system", async () => {
  const code = await chunks();
  const start = [...code.keys()].filter((name) => name.startsWith("./session-start-"));
  expect(start).toHaveLength(1);
  expect(builtinsLinkedBy(code, start[0] ?? "")).toEqual(["fs", "fs/promises", "os", "path"]);
  // Neither the agent nor the bridge's session parts come with it.
  const linked = linkedBy(code, start[0] ?? "").chunks;
  expect(linked.some((name) => name.startsWith("./compose-"))).toBe(false);
  expect(linked.some((name) => name.startsWith("./session-parts-"))).toBe(false);
});

/**
 * The one chunk whose code `holds` accepts: the chunks that import it statically, the ones that
 * load it with `import()`, and whether `dsh acp`'s start-up links it.
 */
function soleChunk(code: Map<string, string>, holds: (text: string) => boolean) {
  const found = [...code.keys()].filter((name) => holds(code.get(name) ?? ""));
  expect(found).toHaveLength(1);
  const chunk = found[0] ?? "";
  const acp = [...code.keys()].filter((name) => name.startsWith("./acp-"));
  return {
    importers: [...code.keys()].filter((name) =>
      linkedModules(code.get(name) ?? "").includes(chunk),
    ),
    loaders: [...code.keys()].filter((name) =>
      (code.get(name) ?? "").includes(`import("${chunk}")`),
    ),
    linkedByAcp: linkedBy(code, acp[0] ?? "").chunks.includes(chunk),
  };
}

test("bash's grammar (for permission rules) is a chunk of its own, loaded only by the rule check's import()", async () => {
  const code = await chunks();
  const grammar = soleChunk(code, (text) => /tree-sitter-bash-[a-z0-9]+\.wasm/.test(text));
  expect({
    ...grammar,
    loaders: grammar.loaders.map((name) => code.get(name)?.includes("function readProgram(")),
  }).toEqual({ importers: [], loaders: [true], linkedByAcp: false });
});

test("the YAML parser (for front matter) is a chunk of its own, loaded only by import(), never by dsh acp's start-up", async () => {
  const code = await chunks();
  // A message only the yaml library holds.
  const yaml = soleChunk(code, (text) =>
    text.includes("Nested mappings are not allowed in compact mappings"),
  );
  expect({ ...yaml, loaders: yaml.loaders.length }).toEqual({
    importers: [],
    loaders: 1,
    linkedByAcp: false,
  });
});

test("the HTML converter (mdream) is a chunk of its own, loaded only by import(), never by dsh acp's start-up", async () => {
  const code = await chunks();
  // The name of a class only mdream's glue code defines.
  const engine = soleChunk(code, (text) => text.includes("MarkdownStreamFinalization"));
  expect({ ...engine, loaders: engine.loaders.length }).toEqual({
    importers: [],
    loaders: 1,
    linkedByAcp: false,
  });
});

test("the check sees every form of static import, so a new heavy builtin cannot slip past it", () => {
  const code = [
    'import { readFileSync } from "fs";',
    'import * as readline from "readline";',
    'import crypto from "crypto";',
    'import "url";',
    'import {\n  shared,\n  other\n} from "./chunk-1.js";',
    'import"./chunk-2.js";',
    'const later = await import("worker_threads");',
    '  import { nested } from "net";',
  ].join("\n");
  expect(linkedModules(code)).toEqual([
    "./chunk-1.js",
    "./chunk-2.js",
    "crypto",
    "fs",
    "readline",
    "url",
  ]);
});
