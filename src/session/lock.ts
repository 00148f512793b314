/**
 * The cross-process writer lock of one session: `<home>/sessions/<id>.lock`, a small JSON file
 * naming the owning process. It is published whole with `link(2)` (atomic create-if-absent),
 * so a reader never sees a half-written lock, and a lock whose owner is gone (SIGKILL, power
 * loss) is stale and taken over.
 *
 * Taking over is race-free: to replace a stale lock, a process must first create the claim
 * file `<lock>.<identity>` (again with `link`), where the identity is a hash of the stale
 * lock's bytes. Only one process can ever create that name while it exists, and the holder
 * checks that the lock is still that same stale one before it `rename`s its own over it. A
 * claim whose holder died mid-takeover is itself stale and is taken over the same way.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { errorCode } from "../error-code.ts";
import { ConflictError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import { currentOwner, LockRecord, ownerMayBeAlive } from "./lock-owner.ts";
import { parseLine } from "./parse-log.ts";

/** A held session lock. */
export interface SessionLock {
  readonly path: string;
  /** Removes the lock file if it is still this lock. Idempotent; never throws. */
  release(): void;
}

export interface LockSessionOptions {
  /** The lock file, `<home>/sessions/<id>.lock`; its directory must exist. */
  readonly path: string;
  readonly sessionId: string;
  readonly logger: Logger;
}

/** Nested claims: one per owner that died while taking over; more means something is odd. */
const MAX_DEPTH = 3;
/** Rounds of "gone before it could be read", when other processes open and close quickly. */
const MAX_ATTEMPTS = 8;

/**
 * Takes the session's lock for this process. Throws ConflictError naming the holder's pid when
 * a process that may still be running holds it; takes a stale lock over.
 */
export function lockSession(options: LockSessionOptions): SessionLock {
  const { path, sessionId, logger } = options;
  const owner = currentOwner();
  const content = `${JSON.stringify(owner)}\n`;
  take(path, content, sessionId, 0);
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      try {
        if (readLock(path)?.record?.nonce !== owner.nonce) {
          logger.warn("session lock was replaced while held; leaving it", { path });
          return;
        }
        unlinkSync(path);
      } catch (error) {
        logger.warn("session lock not removed", { path, error: errorMessage(error) });
      }
    },
  };
}

function take(path: string, content: string, sessionId: string, depth: number): void {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (publish(path, content)) return;
    const seen = readLock(path);
    if (seen === undefined) continue;
    if (seen.record !== undefined && ownerMayBeAlive(seen.record)) {
      throw heldBy(sessionId, seen.record, path);
    }
    if (depth === MAX_DEPTH) break;
    const claim = `${path}.${seen.identity}`;
    take(claim, content, sessionId, depth + 1);
    try {
      // Only the claim's holder may replace this stale lock, and nothing else removes it (its
      // owner is dead), so it cannot change between this check and the rename.
      if (readLock(path)?.identity === seen.identity) {
        replace(path, content);
        return;
      }
    } finally {
      unlinkQuietly(claim);
    }
  }
  const message = `session ${sessionId} is locked by ${path}, which could not be taken over`;
  throw new ConflictError(message, { sessionId, lockPath: path });
}

function heldBy(sessionId: string, owner: LockRecord, path: string): ConflictError {
  const { pid, host } = owner;
  const data = { sessionId, pid, host, lockPath: path };
  const session = `session ${sessionId}`;
  if (host !== hostname()) {
    const where = `a dsh process on ${host} (pid ${pid})`;
    const hint = `if that process is gone, delete ${path}`;
    return new ConflictError(`${session} is open in ${where}; ${hint}`, data);
  }
  if (pid === process.pid) {
    return new ConflictError(`${session} is already open in this process`, data);
  }
  return new ConflictError(`${session} is open in another dsh process (pid ${pid})`, data);
}

interface SeenLock {
  /** A hash of the file's bytes: equal for the same lock, different for any other. */
  readonly identity: string;
  /** The owner, or undefined for content that is not a lock record (stale by definition). */
  readonly record: LockRecord | undefined;
}

/** The lock at `path`, or undefined when there is none. */
function readLock(path: string): SeenLock | undefined {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  const parsed = parseLine(LockRecord, bytes);
  return { identity: Bun.hash(bytes).toString(36), record: parsed.ok ? parsed.value : undefined };
}

/** Creates `path` with `content` unless it exists; false when it does. */
function publish(path: string, content: string): boolean {
  const temp = writeTemp(path, content);
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
}

/** Atomically puts `content` at `path`, whatever was there. */
function replace(path: string, content: string): void {
  const temp = writeTemp(path, content);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
}

function writeTemp(path: string, content: string): string {
  const temp = `${path}.${Bun.randomUUIDv7()}.tmp`;
  writeFileSync(temp, content, { flag: "wx", mode: 0o600 });
  return temp;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or a leftover that a later takeover or the user can remove.
  }
}
