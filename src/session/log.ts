/**
 * The writer of one session log. Lines are validated before they are written, so the file only
 * ever holds what a reader accepts, and each append reaches the file before it counts: an
 * event is in `events` only once its whole line was written. The writer knows the byte length of
 * its good lines and checks the file before each write and flush, so nothing that happens to the
 * file behind its back is silent:
 * - a failed write (ENOSPC, EFBIG) is cut back to the last good line and throws; the next
 *   append tries again, so the log works again once space returns;
 * - a file deleted or cut short while live is written anew from the events held in memory;
 * - a file replaced by another one is never written over: appends throw until the session is
 *   reopened.
 */
import {
  closeSync,
  fstatSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import * as v from "valibot";
import { errorCode } from "../error-code.ts";
import { ConflictError, InvalidInputError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import { type NewSessionEvent, SessionEvent, type SessionHeader } from "./events.ts";
import { describeIssues } from "./parse-log.ts";
import type { SessionLog } from "./types.ts";

export interface OpenSessionLogOptions {
  readonly path: string;
  readonly header: SessionHeader;
  /** The events already in the file, in `seq` order. The log takes ownership of the array. */
  readonly events: SessionEvent[];
  /** When the file ends in a dropped torn line: its good length, restored before an append. */
  readonly truncateTo?: number;
  readonly logger: Logger;
  /** Called once, after the file is closed. */
  readonly onClose?: () => void;
}

/**
 * Opens the writer of an existing log file. The caller guarantees it is the only writer of
 * this session in the process.
 */
export function openSessionLog(options: OpenSessionLogOptions): SessionLog {
  const { path, header, events, logger } = options;
  let fd = openSync(path, "a");
  let identity = fileIdentity(fstatSync(fd));
  // Bytes of the header and the good events; anything past it is a torn line to cut away.
  let length = options.truncateTo ?? fstatSync(fd).size;
  let closing: Promise<void> | undefined;
  let flushes: Promise<void> = Promise.resolve();

  const cannotWrite = (error: unknown) =>
    new ConflictError(`session log ${path} cannot be written: ${errorMessage(error)}`, { path });

  /** Writes the whole log from memory to a new file and puts it in place of the old one. */
  const rewrite = (why: string) => {
    logger.warn("writing the session log anew from memory", { path, why });
    const text = [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join("");
    const temp = `${path}.${process.pid}.${crypto.randomUUID()}.tmp`;
    const bytes = Buffer.from(text);
    let tempFd: number | undefined;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      tempFd = openSync(temp, "wx", 0o600);
      writeFully(tempFd, bytes);
      fsyncSync(tempFd);
      closeSync(tempFd);
      tempFd = undefined;
      renameSync(temp, path);
    } catch (error) {
      if (tempFd !== undefined) closeSync(tempFd);
      try {
        unlinkSync(temp);
      } catch {
        // Never created, or already renamed.
      }
      throw cannotWrite(error);
    }
    closeSync(fd);
    fd = openSync(path, "a");
    identity = fileIdentity(fstatSync(fd));
    length = bytes.byteLength;
  };

  /** Makes the file hold exactly the good lines before anything is added or synced. */
  const reconcile = () => {
    const onPath = pathIdentity(path);
    if (onPath !== undefined && onPath !== identity) {
      throw new ConflictError(
        `session log ${path} was replaced by another file; reopen the session to use it`,
        { path },
      );
    }
    const stat = fstatSync(fd);
    if (onPath === undefined || stat.nlink === 0) return rewrite("the file was deleted");
    if (stat.size < length) return rewrite("the file was cut short");
    if (stat.size > length) ftruncateSync(fd, length);
  };

  const writeLine = (line: string) => {
    try {
      reconcile();
      writeFully(fd, Buffer.from(line));
    } catch (error) {
      // Part of the line may be on disk: cut it off now, so the file ends at a good line (the
      // next append retries this if it fails too).
      try {
        ftruncateSync(fd, length);
      } catch {
        // The file is reconciled again before the next write.
      }
      throw error instanceof ConflictError ? error : cannotWrite(error);
    }
    length += Buffer.byteLength(line);
  };

  const flushNow = async () => {
    try {
      reconcile();
      await fsyncFd(fd);
    } catch (error) {
      throw error instanceof ConflictError ? error : cannotWrite(error);
    }
  };

  return {
    header,
    events,
    append(event: NewSessionEvent): SessionEvent {
      if (closing) throw new ConflictError(`session log ${path} is closed`, { path });
      const last = events.at(-1);
      // Events of one millisecond share one time string: a long session holds one per event.
      const now = new Date().toISOString();
      const at = last?.at === now ? last.at : now;
      const candidate = { ...event, seq: (last?.seq ?? 0) + 1, at };
      const result = v.safeParse(SessionEvent, candidate);
      if (!result.success) {
        throw new InvalidInputError(`invalid session event: ${describeIssues(result.issues)}`, {
          type: event.type,
        });
      }
      writeLine(`${JSON.stringify(result.output)}\n`);
      events.push(result.output);
      return result.output;
    },
    flush(): Promise<void> {
      if (closing) return closing;
      const next = flushes.then(flushNow);
      flushes = next.catch(() => undefined);
      return next;
    },
    [Symbol.asyncDispose](): Promise<void> {
      closing ??= (async () => {
        try {
          await flushes;
          await flushNow();
        } catch (error) {
          logger.error("session log not flushed on close", { path, error: errorMessage(error) });
        } finally {
          closeSync(fd);
          options.onClose?.();
        }
      })();
      return closing;
    },
  };
}

/** Writes all of `bytes`, continuing after short writes; throws what the write throws. */
function writeFully(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.byteLength; ) {
    offset += writeSync(fd, bytes, offset, bytes.byteLength - offset);
  }
}

function fileIdentity(stat: { dev: number; ino: number }): string {
  return `${stat.dev}:${stat.ino}`;
}

/** The identity of the file at `path`, or `undefined` when there is none. */
function pathIdentity(path: string): string | undefined {
  try {
    return fileIdentity(statSync(path));
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

function fsyncFd(fd: number): Promise<void> {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  fsync(fd, (error) => (error ? reject(error) : resolve()));
  return promise;
}
