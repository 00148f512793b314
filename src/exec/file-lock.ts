/**
 * Advisory locks shared by every dsh process on the machine (flock(2), which Bun has no API
 * for): a command holds its project's lock shared while it runs, and only a holder that can
 * turn it exclusive, because no other command of the project runs, may undo what commands
 * share (`placeholders.ts`). The kernel drops a dead process's locks, so none goes stale.
 */
import { closeSync, constants, openSync } from "node:fs";
import { InvalidInputError } from "../errors.ts";
import { openLibc } from "../libc.ts";

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;

/** How long a shared lock is waited for: an exclusive holder only removes a few entries. */
const SHARED_WAIT_MS = 5_000;

/** A held shared lock. */
export interface SharedLock {
  /** Turns the lock exclusive when no other holder has it; false (and no lock) otherwise. */
  tryExclusive(): boolean;
  /** Drops the lock. Idempotent; never throws. */
  release(): void;
}

/** Takes shared locks on lock files. */
export interface FileLocks {
  /**
   * Takes `path` (created when missing) shared, waiting while another process holds it
   * exclusive. Throws `InvalidInputError` when it stays exclusive for seconds.
   */
  shared(path: string): SharedLock;
}

/** The locks of this platform, or undefined where flock(2) cannot be reached. Never throws. */
export async function loadFileLocks(): Promise<FileLocks | undefined> {
  const libc = await openLibc((types) => ({
    flock: { args: [types.i32, types.i32], returns: types.i32 },
  }));
  if (libc === undefined) return undefined;
  const flock = (fd: number, operation: number) => libc.symbols.flock(fd, operation) === 0;
  return {
    shared(path) {
      const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
      const deadline = performance.now() + SHARED_WAIT_MS;
      while (!flock(fd, LOCK_SH | LOCK_NB)) {
        if (performance.now() > deadline) {
          closeSync(fd);
          throw new InvalidInputError(
            `${path} stayed locked for ${SHARED_WAIT_MS / 1000} s; another dsh process is ` +
              "stuck while cleaning up after a command in this project: end it, then run the " +
              "command again",
            { path },
          );
        }
        Bun.sleepSync(2);
      }
      let held = true;
      return {
        // Not atomic (flock(2) drops the shared lock first): a failure leaves no lock at all.
        tryExclusive: () => held && flock(fd, LOCK_EX | LOCK_NB),
        release() {
          if (!held) return;
          held = false;
          closeSync(fd);
        },
      };
    },
  };
}
