/**
 * The writer of one session log: a Bun FileSink on a file opened for append. Lines are
 * validated before they are written, so the file only ever holds what a reader accepts.
 */
import { closeSync, fsync, ftruncateSync, openSync } from "node:fs";
import * as v from "valibot";
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
  const fd = openSync(path, "a");
  const sink = Bun.file(fd).writer();
  let truncateTo = options.truncateTo;
  let failure: ConflictError | undefined;
  let closing: Promise<void> | undefined;
  let flushes: Promise<void> = Promise.resolve();

  const failed = (error: unknown): ConflictError => {
    const reason = errorMessage(error);
    failure ??= new ConflictError(`session log ${path} cannot be written: ${reason}`, { path });
    return failure;
  };

  const writeLine = (line: string) => {
    try {
      if (truncateTo !== undefined) {
        ftruncateSync(fd, truncateTo);
        truncateTo = undefined;
      }
      const written = sink.write(line);
      if (written instanceof Promise) written.catch((error: unknown) => failed(error));
    } catch (error) {
      // Part of the line may be on disk; another append would bury it mid-file. A torn last
      // line is dropped on the next open, so stop here and leave it last.
      throw failed(error);
    }
  };

  const flushNow = async () => {
    if (failure) throw failure;
    try {
      await sink.flush();
      await fsyncFd(fd);
    } catch (error) {
      throw failed(error);
    }
  };

  return {
    header,
    events,
    append(event: NewSessionEvent): SessionEvent {
      if (closing) throw new ConflictError(`session log ${path} is closed`, { path });
      if (failure) throw failure;
      const last = events.at(-1);
      const candidate = { ...event, seq: (last?.seq ?? 0) + 1, at: new Date().toISOString() };
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
          try {
            await sink.end();
          } catch {
            // Already reported above; the fd is closed below either way.
          }
          closeSync(fd);
          options.onClose?.();
        }
      })();
      return closing;
    },
  };
}

function fsyncFd(fd: number): Promise<void> {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  fsync(fd, (error) => (error ? reject(error) : resolve()));
  return promise;
}
