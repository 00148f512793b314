/**
 * dsh's side of the watchdog (`watchdog-main.ts`): started once, at the first process that
 * needs it, and told over a pipe what to end if dsh goes. Each message is written whole, with
 * a blocking write, before the process it is about may start (`lifetime.ts` holds a spawned
 * process at a gate until then): a dsh killed at any moment leaves nothing the watchdog has
 * not heard of. A watchdog that dies is started again with everything held so far.
 */
import { closeSync, writeSync } from "node:fs";
import type { Logger } from "../log.ts";
import { dshArgv } from "./self-argv.ts";

/** What the watchdog is told to end with dsh. */
export interface Watchdog {
  holdGroup(pgid: number): void;
  releaseGroup(pgid: number): void;
  /** A command's sandbox, by its own temp directory (see `sandbox-sweep.ts`). */
  holdSandbox(marker: string): void;
  releaseSandbox(marker: string): void;
}

export interface WatchdogOptions {
  readonly logger: Logger;
  /** The watchdog's argv; dsh's own with `__watchdog` when absent. */
  readonly argv?: readonly string[];
}

/** Starts the watchdog (its process is unreferenced: it never keeps dsh running). */
export function startWatchdog(options: WatchdogOptions): Watchdog {
  const held = new Set<string>();
  let fd: number | undefined;
  let warned = false;
  const spawn = (): number => {
    const proc = Bun.spawn([...(options.argv ?? [...dshArgv(), "__watchdog"])], {
      stdio: ["ignore", "ignore", "ignore", "pipe"],
      env: { PATH: "/usr/bin:/bin:/usr/sbin:/sbin" },
      detached: true,
    });
    proc.unref();
    const control = proc.stdio[3];
    if (typeof control !== "number") throw new Error("the watchdog has no control pipe");
    void proc.exited.then(() => {
      if (fd !== control) return;
      fd = undefined;
      closeQuietly(control);
    });
    return control;
  };
  const send = (line: string) => {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (fd === undefined) {
          fd = spawn();
          for (const known of held) writeSync(fd, known);
        }
        writeSync(fd, line);
        return;
      } catch (error) {
        if (fd !== undefined) closeQuietly(fd);
        fd = undefined;
        if (attempt === 0) continue;
        if (!warned) {
          warned = true;
          options.logger.warn(
            "dsh's watchdog cannot be started: a command or MCP server can outlive a dsh that is killed (SIGKILL)",
            { error },
          );
        }
      }
    }
  };
  const hold = (line: string) => {
    held.add(line);
    send(line);
  };
  const release = (line: string, added: string) => {
    if (!held.delete(added)) return;
    send(line);
  };
  return {
    holdGroup: (pgid) => hold(`g+ ${pgid}\n`),
    releaseGroup: (pgid) => release(`g- ${pgid}\n`, `g+ ${pgid}\n`),
    holdSandbox: (marker) => hold(`s+ ${marker}\n`),
    releaseSandbox: (marker) => release(`s- ${marker}\n`, `s+ ${marker}\n`),
  };
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
}
