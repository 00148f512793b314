/**
 * The folders of `src/` import downward only: the README's Contributing section lists them from
 * the bottom up, and the import matrix computed from every import in `src/` has no cell above
 * that order's diagonal (a folder importing one listed after it, or itself through another).
 */
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const root = join(import.meta.dir, "..", "..");
const src = join(root, "src");
/** Where the files directly in `src/` sit: below every folder. */
const ROOT_FILES = "(src)";

/** The layer order as the README states it, bottom first. */
async function documentedOrder(): Promise<string[]> {
  const readme = await Bun.file(join(root, "README.md")).text();
  const heading = "The folders of `src/`, from the bottom up:";
  const start = readme.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  // The list runs to the end of its sentence.
  const sentence = readme.slice(
    start + heading.length,
    readme.indexOf(".", start + heading.length),
  );
  return [...sentence.matchAll(/`([a-z-]+)\/`/g)].map((match) => match[1] ?? "");
}

/** The folder of `src/` a path lies in, ROOT_FILES for a file directly in `src/`, or undefined outside. */
function folderOf(path: string): string | undefined {
  const inside = relative(src, path);
  if (inside.startsWith("..")) return undefined;
  const parts = inside.split(sep);
  return parts.length === 1 ? ROOT_FILES : parts[0];
}

/** Every import of one folder by another: `from -> to` with the file and specifier that make it. */
async function importMatrix(): Promise<Map<string, string[]>> {
  const cells = new Map<string, string[]>();
  for await (const file of new Bun.Glob("**/*.ts").scan(src)) {
    const path = join(src, file);
    const from = folderOf(path) ?? "";
    const text = await Bun.file(path).text();
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      const specifier = match[1] ?? "";
      const to = folderOf(resolve(dirname(path), specifier));
      if (to === undefined || to === from) continue;
      const key = `${from} -> ${to}`;
      cells.set(key, [...(cells.get(key) ?? []), `src/${file}: ${specifier}`]);
    }
  }
  return cells;
}

test("the README's layer order names every folder of src/ once", async () => {
  const order = await documentedOrder();
  const folders = readdirSync(src, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  expect([...order].sort()).toEqual(folders.sort());
  expect(new Set(order).size).toBe(order.length);
});

test("the import matrix is triangular in that order: no folder imports one above it", async () => {
  const layer = new Map([ROOT_FILES, ...(await documentedOrder())].map((name, i) => [name, i]));
  const cells = await importMatrix();
  expect(cells.size).toBeGreaterThan(0);
  const upward = [...cells].filter(([key]) => {
    const [from, to] = key.split(" -> ");
    const below = layer.get(from ?? "") ?? -1;
    return (layer.get(to ?? "") ?? Number.POSITIVE_INFINITY) > below;
  });
  expect(upward).toEqual([]);
});
