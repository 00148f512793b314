/**
 * Placeholders for protected paths that do not exist yet. A missing name in a writable
 * directory can only be kept from being created by a mount at that very name, and a mount
 * needs something there: so dsh makes it (an empty directory or an empty file), the sandbox
 * binds it read-only, and the command's write fails. Nothing a command wrote is ever removed here; the placeholders are removed once
 * the last command of the project ends, if they are still as dsh made them (same inode, empty).
 *
 * Several dsh processes may run commands in one project at once, and removing a mount point
 * on the host detaches it in every sandbox that has it. So each command holds the project's
 * lock shared from before its placeholders are made until it ended (`file-lock.ts`), and only a
 * command that can take it exclusive removes any; what each command made is recorded in dsh's
 * state directory (which commands never see), so the last one out, or the next after a crash,
 * removes what the others made too.
 *
 * Every operation goes through descriptors (`/proc/self/fd/N/name`, Linux, like the file
 * tools' writes): a directory swapped for a symlink meanwhile cannot redirect a removal
 * outside the project, and only entries that are what was recorded are removed.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import * as v from "valibot";
import { errorCode } from "../error-code.ts";
import type { Logger } from "../log.ts";
import { isWithin } from "../paths.ts";
import type { FileLocks, SharedLock } from "./file-lock.ts";

/** One placeholder dsh made. */
const MadeEntry = v.object({
  /** Relative to the workspace, `/`-separated components. */
  path: v.string(),
  type: v.picklist(["dir", "file"]),
  dev: v.string(),
  ino: v.string(),
  /** Tells a new file that got the freed inode number from the one dsh made ("0": unknown). */
  birth: v.string(),
});
type MadeEntry = v.InferOutput<typeof MadeEntry>;

/** What one command made in one workspace, kept until the last command of it ends. */
const MadeRecord = v.object({
  workspace: v.string(),
  dev: v.string(),
  ino: v.string(),
  entries: v.array(MadeEntry),
});
type MadeRecord = v.InferOutput<typeof MadeRecord>;

/** A placeholder, by absolute path. */
export interface Placeholder {
  readonly path: string;
  readonly type: "dir" | "file";
}

/** The placeholders of one command. */
export interface PlaceholderHold {
  /**
   * Makes `path` (inside the workspace, missing, its parent there) as an empty directory or
   * file. True when something is at `path` afterwards (made, or made by another process
   * meanwhile); false when it was not made (a read-only parent, where no command can make it
   * either; a symlink on the way; or nothing to agree with other processes through).
   */
  make(path: string, type: "dir" | "file"): boolean;
  /**
   * The placeholders in the workspace now: those other commands made (recorded when this hold
   * began), then this one's.
   */
  placeholders(): readonly Placeholder[];
  /** Records what was made, for whoever ends last. Call before the command starts. */
  seal(): void;
  /** Keeps `text` in a file of dsh's own until release; returns its path. */
  keep(text: string): string;
  /** Ends this command's hold; removes every placeholder when it was the last. Never throws. */
  release(): void;
}

export interface PlaceholderOptions {
  /** dsh's state directory, where the records and locks live. */
  readonly stateDir: string;
  /** Undefined where flock(2) is not reachable. */
  readonly locks: FileLocks | undefined;
  readonly logger: Logger;
}

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A hold that makes nothing: the guards then forbid missing paths instead. */
const NO_HOLD: PlaceholderHold = {
  make: () => false,
  placeholders: () => [],
  seal() {},
  keep: () => {
    throw new Error("nothing is kept without a state directory");
  },
  release() {},
};

/**
 * Opens holds on workspaces (realpaths); a hold throws only when the project's lock stays
 * taken. Without flock(2) or a state directory (never so in a real run) no placeholder is
 * made. Opening first removes what commands of dsh processes that died left behind.
 */
export function createPlaceholders(
  options: PlaceholderOptions,
): (workspace: string) => PlaceholderHold {
  const { locks, logger } = options;
  if (locks !== undefined) sweep(options.stateDir, locks, logger);
  return (workspace) => {
    const area = recordArea(options.stateDir, workspace);
    if (locks === undefined || area === undefined) return NO_HOLD;
    const root = openSync(workspace, DIRECTORY);
    let lock: SharedLock;
    try {
      lock = locks.shared(`${area}.lock`);
    } catch (error) {
      closeSync(root);
      throw error;
    }
    const rootStat = fstatSync(root, { bigint: true });
    // What other commands made: they hold the lock too, and their records are whole (written
    // under another name, then renamed).
    const others = readRecords(area, logger)
      .filter((record) => record.workspace === workspace)
      .flatMap((record) => record.entries);
    const made: MadeEntry[] = [];
    const kept: string[] = [];
    let sealed = false;
    let released = false;
    const seal = () => {
      if (sealed || made.length === 0) return;
      sealed = true;
      const record: MadeRecord = {
        workspace,
        dev: String(rootStat.dev),
        ino: String(rootStat.ino),
        entries: made,
      };
      const file = join(area, `${process.pid}-${crypto.randomUUID()}.json`);
      writeFileSync(`${file}.tmp`, JSON.stringify(record));
      renameSync(`${file}.tmp`, file);
    };
    return {
      make(path, type) {
        if (!isWithin(workspace, path) || path === workspace) return false;
        try {
          return makeAt(root, relative(workspace, path).split(sep), type, made);
        } catch (error) {
          // A directory nobody may write (no command can make the path either) is expected.
          const expected = ["EACCES", "EPERM", "EROFS"].includes(errorCode(error) ?? "");
          logger[expected ? "debug" : "warn"](
            "a placeholder for a protected path could not be made",
            {
              path,
              error,
            },
          );
          return false;
        }
      },
      placeholders: () =>
        [...others, ...made].map((entry) => ({
          path: join(workspace, ...entry.path.split("/")),
          type: entry.type,
        })),
      seal,
      keep(text) {
        const file = join(area, `${process.pid}-${crypto.randomUUID()}.kept`);
        writeFileSync(file, text, { flag: "wx" });
        kept.push(file);
        return file;
      },
      release() {
        if (released) return;
        released = true;
        try {
          for (const file of kept) unlinkSync(file);
          seal();
          if (lock.tryExclusive()) removeAll(area, logger);
        } catch (error) {
          logger.warn("placeholders of protected paths were not removed", { workspace, error });
        } finally {
          lock.release();
          closeSync(root);
        }
      },
    };
  };
}

/** Removes the placeholders of every project no command runs in now (left by a dead dsh). */
function sweep(stateDir: string, locks: FileLocks, logger: Logger): void {
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
 * Where the records of `workspace` live: `<state>/placeholders/<key>`, made when missing, but
 * only inside a state directory that exists. Undefined when there is none to use.
 */
function recordArea(stateDir: string, workspace: string): string | undefined {
  const area = join(stateDir, "placeholders", keyOf(workspace));
  try {
    if (!lstatSync(stateDir).isDirectory()) return undefined;
    mkdirSync(area, { recursive: true });
    return area;
  } catch {
    return undefined;
  }
}

/**
 * Makes the last of `parts` below the directory `fd` holds, as `type`; the others must exist
 * and are opened without following links. Owned like its parent when dsh runs as root.
 */
function makeAt(fd: number, parts: string[], type: "dir" | "file", made: MadeEntry[]): boolean {
  let dir = fd;
  try {
    for (const name of parts.slice(0, -1)) {
      const next = openSync(`/proc/self/fd/${dir}/${name}`, DIRECTORY);
      if (dir !== fd) closeSync(dir);
      dir = next;
    }
    const here = `/proc/self/fd/${dir}/${parts.at(-1) ?? ""}`;
    if (!create(here, type)) return true;
    const parent = fstatSync(dir);
    if (process.getuid?.() === 0 && (parent.uid !== 0 || parent.gid !== 0)) {
      lchownSync(here, parent.uid, parent.gid);
    }
    const stat = lstatSync(here, { bigint: true });
    made.push({
      path: parts.join("/"),
      type,
      dev: String(stat.dev),
      ino: String(stat.ino),
      birth: String(stat.birthtimeNs),
    });
    return true;
  } finally {
    if (dir !== fd) closeSync(dir);
  }
}

/** Creates an empty directory or file; false when something is there already. */
function create(path: string, type: "dir" | "file"): boolean {
  try {
    if (type === "dir") mkdirSync(path);
    else closeSync(openSync(path, NEW_FILE, 0o644));
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}

/**
 * Removes what every record of `area` lists, then the records. Deepest first over all of
 * them: one command's placeholder may lie in another's (made while that one ran).
 */
function removeAll(area: string, logger: Logger): void {
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
function readRecords(area: string, logger: Logger): MadeRecord[] {
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

/** Removes one recorded entry if it is still the empty one dsh made. */
function removeEntry(root: number, entry: MadeEntry): void {
  const parts = entry.path.split("/");
  let dir = root;
  try {
    for (const name of parts.slice(0, -1)) {
      const next = openSync(`/proc/self/fd/${dir}/${name}`, DIRECTORY);
      if (dir !== root) closeSync(dir);
      dir = next;
    }
    const here = `/proc/self/fd/${dir}/${parts.at(-1) ?? ""}`;
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
  } finally {
    if (dir !== root) closeSync(dir);
  }
}

/** A short name for a workspace's records and lock. */
function keyOf(workspace: string): string {
  return new Bun.CryptoHasher("sha256").update(workspace).digest("hex").slice(0, 32);
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
