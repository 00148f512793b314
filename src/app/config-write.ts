/**
 * Sets top-level keys of the config file without disturbing the rest of it (comments, tables,
 * other keys): a key already there is replaced in place, a new one goes before the first table.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Writes `values` (strings) as top-level TOML keys of the file at `path`, creating it if needed. */
export function setTopLevelKeys(path: string, values: Readonly<Record<string, string>>): void {
  const lines = existsSync(path) ? readFileSync(path, "utf8").split("\n") : [];
  const firstTable = lines.findIndex((line) => /^\s*\[/.test(line));
  const topEnd = firstTable === -1 ? lines.length : firstTable;
  const added: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const line = `${key} = ${JSON.stringify(value)}`;
    const at = lines.slice(0, topEnd).findIndex((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
    if (at === -1) added.push(line);
    else lines[at] = line;
  }
  const text = [...added, ...lines].join("\n");
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text.endsWith("\n") ? text : `${text}\n`);
}
