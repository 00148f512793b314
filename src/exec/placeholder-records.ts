/**
 * The records of the placeholders dsh made (`placeholders.ts`), in dsh's state directory, and
 * their removal. Only a holder of the project's lock exclusive removes anything, and each
 * removal goes through descriptors (`/proc/self/fd/N/name`, Linux, like the file tools'
 * writes): a directory swapped for a symlink meanwhile cannot redirect it outside the project,
 * and only an entry that is still the empty one recorded (same inode and birth time) goes.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { Logger } from "../log.ts";
import type { FileLocks } from "./file-lock.ts";

/** Directories are opened without following a link, for descriptor-relative operations. */
export const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** One placeholder dsh made. */
export const MadeEntry = v.object({
  /** Relative to the workspace, `/`-separated components. */
  path: v.string(),
  type: v.picklist(["dir", "file"]),
  dev: v.string(),
  ino: v.string(),
  /** Tells a new file that got the freed inode number from the one dsh made ("0": unknown). */
  birth: v.string(),
});
export type MadeEntry = v.InferOutput<typeof MadeEntry>;

/** What one command made in one workspace, kept until the last command of it ends. */
export const MadeRecord = v.object({
  workspace: v.string(),
  dev: v.string(),
  ino: v.string(),
  entries: v.array(MadeEntry),
});
export type MadeRecord = v.InferOutput<typeof MadeRecord>;

/** Removes the placeholders of every project no command runs in now (left by a dead dsh). */
export function sweep(stateDir: string, locks: FileLocks, logger: Logger): void {
  const top = join(stateDir, "placeholders");
  let names: string[];
  try {
    names = readdirSync(top).filter((name) => !name.endsWith(".lock"));
  } catch {
    return;
  }
  for (const name of names) {
    const area = join(top, name);
    try {
      if (readdirSync(area).length === 0) continue;
      const lock = locks.shared(`${area}.lock`);
      try {
        if (lock.tryExclusive()) removeAll(area, logger);
      } finally {
        lock.release();
      }
    } catch (error) {
      logger.debug("placeholders left by an earlier dsh were not checked", { area, error });
    }
  }
}

/**
 * Removes what every record of `area` lists, then the records. Deepest first over all of
 * them: one command's placeholder may lie in another's (made while that one ran).
 */
export function removeAll(area: string, logger: Logger): void {
  const records = readRecords(area, logger);
  for (const name of readdirSync(area)) unlinkSync(join(area, name));
  const entries = records.flatMap((record) => record.entries.map((entry) => ({ record, entry })));
  entries.sort((a, b) => depth(b.entry.path) - depth(a.entry.path));
  const roots = new Map<MadeRecord, number | undefined>();
  try {
    for (const { record, entry } of entries) {
      if (!roots.has(record)) roots.set(record, openWorkspace(record));
      const root = roots.get(record);
      if (root === undefined) continue;
      try {
        removeEntry(root, entry);
      } catch (error) {
        logger.debug("a placeholder was left", { path: entry.path, error });
      }
    }
  } finally {
    for (const root of roots.values()) if (root !== undefined) closeSync(root);
  }
}

/** The whole records of `area`; a torn one (a crash while writing) is named in the log. */
export function readRecords(area: string, logger: Logger): MadeRecord[] {
  const records: MadeRecord[] = [];
  for (const name of readdirSync(area)) {
    if (!name.endsWith(".json")) continue;
    const file = join(area, name);
    const record = v.safeParse(MadeRecord, parseJson(readOrEmpty(file)));
    if (record.success) records.push(record.output);
    else logger.warn("a placeholder record is not readable; what it lists is left", { file });
  }
  return records;
}

/**
 * The workspace of `record`, opened, when it is still the directory the record was made in
 * (not moved away, no symlink put in its place); undefined otherwise.
 */
function openWorkspace(record: MadeRecord): number | undefined {
  let root: number;
  try {
    root = openSync(record.workspace, DIRECTORY);
  } catch {
    return undefined;
  }
  const stat = fstatSync(root, { bigint: true });
  if (String(stat.dev) === record.dev && String(stat.ino) === record.ino) return root;
  closeSync(root);
  return undefined;
}

function depth(path: string): number {
  return path.split("/").length;
}

/**
 * Runs `act` with a path naming the last of `parts` inside the directory that the others
 * lead to from `root`, each opened in turn without following a link.
 */
export function atLast<T>(
  root: number,
  parts: readonly string[],
  act: (here: string, dir: number) => T,
): T {
  let dir = root;
  try {
    for (const name of parts.slice(0, -1)) {
      const next = openSync(`/proc/self/fd/${dir}/${name}`, DIRECTORY);
      if (dir !== root) closeSync(dir);
      dir = next;
    }
    return act(`/proc/self/fd/${dir}/${parts.at(-1) ?? ""}`, dir);
  } finally {
    if (dir !== root) closeSync(dir);
  }
}

/** Removes one recorded entry if it is still the empty one dsh made. */
function removeEntry(root: number, entry: MadeEntry): void {
  atLast(root, entry.path.split("/"), (here) => {
    const stat = lstatSync(here, { bigint: true, throwIfNoEntry: false });
    if (
      stat === undefined ||
      String(stat.dev) !== entry.dev ||
      String(stat.ino) !== entry.ino ||
      String(stat.birthtimeNs) !== entry.birth
    ) {
      return;
    }
    if (entry.type === "dir" && stat.isDirectory()) rmdirSync(here);
    else if (entry.type === "file" && stat.isFile() && stat.size === 0n) unlinkSync(here);
  });
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
