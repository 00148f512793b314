/**
 * Placeholders for protected paths that do not exist yet. A missing name in a writable
 * directory can only be kept from being created by a mount at that very name, and a mount
 * needs something there: so dsh makes it (an empty directory or an empty file), the sandbox
 * binds it read-only, and the command's write fails. Nothing a command wrote is ever removed:
 * the placeholders stay for the next command a while, then go once no command of any dsh runs
 * in the project, if they are still as dsh made them (`placeholder-records.ts`).
 *
 * Several dsh processes may run commands in one project at once, and removing a mount point
 * on the host detaches it in every sandbox that has it. So each command holds the project's
 * lock shared from before its placeholders are made until it ended (`file-lock.ts`), and only a
 * command that can take it exclusive removes any; what each command made is recorded in dsh's
 * state directory (which commands never see), so the last one out, or the next after a crash,
 * removes what the others made too. Placeholders are made through descriptors, never through
 * a symlink on the way.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { errorCode } from "../error-code.ts";
import type { Logger } from "../log.ts";
import { isWithin } from "../paths.ts";
import type { FileLocks, SharedLock } from "./file-lock.ts";
import { DIRECTORY, atLast, readRecords, removeAll, sweep } from "./placeholder-records.ts";
import type { MadeEntry, MadeRecord } from "./placeholder-records.ts";

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
  /**
   * Ends this command's hold. When it was this process's last in the workspace, the
   * placeholders stay `lingerMs` for a next command, then go if no command of any dsh runs
   * there. Never throws.
   */
  release(): void;
}

/** Holds on workspaces, and the placeholders that linger after them. */
export interface Placeholders {
  /** Begins a command's hold on `workspace` (a realpath); throws only when the lock stays taken. */
  hold(workspace: string): PlaceholderHold;
  /** Ends every lingering hold now, removing what no other command still needs. Never throws. */
  flush(): void;
}

export interface PlaceholderOptions {
  /** dsh's state directory, where the records and locks live. */
  readonly stateDir: string;
  /** Undefined where flock(2) is not reachable. */
  readonly locks: FileLocks | undefined;
  readonly logger: Logger;
  /** How long placeholders outlive the last command, for the next one; 0: not at all. */
  readonly lingerMs?: number;
}

/**
 * Placeholders stay this long after a command: the commands of one turn come a model answer
 * apart, and each would otherwise make, bind and remove them all again (and an editor would
 * see them come and go).
 */
const LINGER_MS = 15_000;

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

/** One workspace's lock and placeholders in this process, shared by its commands. */
interface Workspace {
  readonly path: string;
  readonly area: string;
  readonly root: number;
  readonly rootStat: { readonly dev: bigint; readonly ino: bigint };
  readonly lock: SharedLock;
  /** Made since the last record was written. */
  pending: MadeEntry[];
  holds: number;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Opens holds on workspaces. Without flock(2) or a state directory (never so in a real run) no
 * placeholder is made. Opening first removes what commands of dsh processes that died left
 * behind.
 */
export function createPlaceholders(options: PlaceholderOptions): Placeholders {
  const { locks, logger } = options;
  const lingerMs = options.lingerMs ?? LINGER_MS;
  if (locks !== undefined) sweep(options.stateDir, locks, logger);
  const open = new Map<string, Workspace>();

  const record = (ws: Workspace) => {
    if (ws.pending.length === 0) return;
    const made: MadeRecord = {
      workspace: ws.path,
      dev: String(ws.rootStat.dev),
      ino: String(ws.rootStat.ino),
      entries: ws.pending,
    };
    ws.pending = [];
    // Written whole under another name, then renamed: a reader never sees half of it.
    const file = join(ws.area, `${process.pid}-${crypto.randomUUID()}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(made));
    renameSync(`${file}.tmp`, file);
  };
  const finish = (ws: Workspace) => {
    clearTimeout(ws.timer);
    open.delete(ws.path);
    if (open.size === 0) process.off("exit", flush);
    try {
      record(ws);
      if (ws.lock.tryExclusive()) removeAll(ws.area, logger);
    } catch (error) {
      logger.warn("placeholders of protected paths were not removed", {
        workspace: ws.path,
        error,
      });
    } finally {
      ws.lock.release();
      closeSync(ws.root);
    }
  };
  // A dsh that exits without disposing still takes its placeholders along.
  const flush = () => {
    for (const ws of [...open.values()]) if (ws.holds === 0) finish(ws);
  };
  const begin = (workspace: string, area: string, held: FileLocks): Workspace => {
    const known = open.get(workspace);
    if (known !== undefined) {
      clearTimeout(known.timer);
      known.holds++;
      return known;
    }
    const root = openSync(workspace, DIRECTORY);
    try {
      const ws: Workspace = {
        path: workspace,
        area,
        root,
        rootStat: fstatSync(root, { bigint: true }),
        lock: held.shared(`${area}.lock`),
        pending: [],
        holds: 1,
      };
      if (open.size === 0) process.on("exit", flush);
      open.set(workspace, ws);
      return ws;
    } catch (error) {
      closeSync(root);
      throw error;
    }
  };

  return {
    hold(workspace) {
      const area = recordArea(options.stateDir, workspace);
      if (locks === undefined || area === undefined) return NO_HOLD;
      const ws = begin(workspace, area, locks);
      // What this and other processes made and recorded (their records are whole).
      const recorded = readRecords(area, logger)
        .filter((made) => made.workspace === workspace)
        .flatMap((made) => made.entries);
      // This hold's own, which sealing moves from `pending` to a record this hold did not read.
      const mine: MadeEntry[] = [];
      const kept: string[] = [];
      let released = false;
      return {
        make(path, type) {
          if (!isWithin(workspace, path) || path === workspace) return false;
          try {
            const before = ws.pending.length;
            const made = makeAt(ws.root, relative(workspace, path).split(sep), type, ws.pending);
            mine.push(...ws.pending.slice(before));
            return made;
          } catch (error) {
            // A directory nobody may write (no command can make the path either) is expected.
            const expected = ["EACCES", "EPERM", "EROFS"].includes(errorCode(error) ?? "");
            logger[expected ? "debug" : "warn"](
              "a placeholder for a protected path could not be made",
              { path, error },
            );
            return false;
          }
        },
        placeholders: () =>
          uniqueEntries([...recorded, ...mine, ...ws.pending]).map((entry) => ({
            path: join(workspace, ...entry.path.split("/")),
            type: entry.type,
          })),
        seal: () => record(ws),
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
            record(ws);
          } catch (error) {
            logger.warn("a placeholder record was not written", { workspace, error });
          }
          if (--ws.holds > 0) return;
          if (lingerMs <= 0) finish(ws);
          else {
            ws.timer = setTimeout(() => finish(ws), lingerMs);
            ws.timer.unref();
          }
        },
      };
    },
    flush,
  };
}

/**
 * Where the records of `workspace` live: `<state>/placeholders/<key>`, made when missing, but
 * only inside a state directory that exists. Undefined when there is none to use.
 */
function uniqueEntries(entries: readonly MadeEntry[]): MadeEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => !seen.has(entry.path) && seen.add(entry.path) !== undefined);
}

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
  return atLast(fd, parts, (here, dir) => {
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
  });
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

/** A short name for a workspace's records and lock. */
function keyOf(workspace: string): string {
  return new Bun.CryptoHasher("sha256").update(workspace).digest("hex").slice(0, 32);
}
