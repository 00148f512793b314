/**
 * The end of a sandbox, seen without looking at every process. bwrap's own process exits as
 * soon as the command it started does, while its child, the sandbox's init (pid 1 of the
 * sandbox's pid namespace), is still ending every other process there; it stays in the
 * command's process group, so the group outlives the command by that moment. The kernel makes
 * that init a zombie only once no other process of its namespace is left, and nothing else of
 * the group runs outside the sandbox (the supervisor chain has ended with bwrap): once the init
 * is a zombie, or reaped, nothing of the command runs any more.
 *
 * bwrap tells the init's pid on `--info-fd`, before anything of the command runs, then closes
 * that descriptor (the command never holds it): only the first object in it counts.
 */
import { closeSync, constants, openSync, readFileSync, readSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorCode } from "../error-code.ts";

/** The init's pid out of what bwrap wrote on `--info-fd`, or undefined. */
export function sandboxInitPid(info: string): number | undefined {
  const first = info.slice(0, info.indexOf("}") + 1);
  const match = /^\{\s*"child-pid":\s*(\d+)[,\s]/.exec(first);
  return match === null ? undefined : Number(match[1]);
}

/**
 * A file for bwrap's `--info-fd` that no other process can open (`unnamedFile`): a file, not a
 * pipe, so that bwrap can never die writing to it (a pipe whose reader, dsh, was killed
 * meanwhile would end bwrap with SIGPIPE before it lets the sandbox go on, and leave that
 * half-made sandbox waiting for it). `initPid` once the command has exited; `close` after that.
 */
export function sandboxInfoFile(): { fd: number; initPid(): number | undefined; close(): void } {
  const fd = unnamedFile(tmpdir());
  return {
    fd,
    initPid() {
      const buffer = Buffer.alloc(4096);
      try {
        // Positional: bwrap's writes moved the shared offset, not where its report starts.
        return sandboxInitPid(
          buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0)),
        );
      } catch {
        return undefined;
      }
    },
    close: () => closeSync(fd),
  };
}

/** Linux's O_TMPFILE (with O_DIRECTORY), the same on x86-64 and arm64. */
const O_TMPFILE = 0o20200000;

/**
 * A file no other process can open by name: made without one (O_TMPFILE) where the file system
 * can, else made under a random name and unlinked at once.
 */
function unnamedFile(dir: string): number {
  try {
    return openSync(dir, O_TMPFILE | constants.O_RDWR, 0o600);
  } catch {
    const path = join(dir, `dsh-info-${process.pid}-${crypto.randomUUID()}`);
    const fd = openSync(path, "wx+", 0o600);
    unlinkSync(path);
    return fd;
  }
}

/** How often the init's state is looked at while it still ends its namespace. */
const POLL_MS = 1;

/**
 * Resolves true once the init `pid` is a zombie or gone, having been in the group `pgid`;
 * false when it is not (a pid taken by another process) or does not end within `withinMs`.
 */
export async function sandboxEnded(pid: number, pgid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const state = initState(pid);
    // Reaped already, or a /proc that does not show it: over only when nothing of the group
    // is left either.
    if (state === "gone") return !groupExists(pgid);
    if (state === undefined || state.pgrp !== pgid) return false;
    if (state.state === "Z" || state.state === "X") return true;
    if (performance.now() >= deadline) return false;
    await Bun.sleep(POLL_MS);
  }
}

/** Whether any process (a zombie too) is still in the process group `pgid`. */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
}

function initState(pid: number): { state: string; pgrp: number } | "gone" | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    return errorCode(error) === "ENOENT" ? "gone" : undefined;
  }
  // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after it.
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return state === undefined ? undefined : { state, pgrp: Number(pgrp) };
}
