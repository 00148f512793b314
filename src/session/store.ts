/**
 * The session store: one append-only JSONL log per session under `<home>/sessions/`. It hands
 * out at most one writer per session across processes (a `<id>.lock` file held while the
 * writer is open) and validates every id before it becomes a path. Reading takes no lock.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { type FileHandle, open, readdir, unlink } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { errorCode } from "../error-code.ts";
import { ConflictError, InvalidInputError, NotFoundError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import { LOG_FORMAT_VERSION, type SessionHeader } from "./events.ts";
import {
  assertSessionId,
  isSessionId,
  newSessionId,
  sessionLockPath,
  sessionPath,
  sessionsDir,
} from "./ids.ts";
import { type SessionLock, lockSession } from "./lock.ts";
import { openSessionLog } from "./log.ts";
import { type ParsedLog, createLogParser } from "./parse-log.ts";
import { type DirectoryScanner, createDirectoryScanner } from "./directory-scan.ts";
import { readSummary } from "./summary.ts";
import type { SessionLog, SessionStore, SessionSummary } from "./types.ts";

export interface SessionStoreDeps {
  /** The dsh home (`DSH_HOME`); logs live in its `sessions/` folder. */
  readonly home: string;
  readonly logger: Logger;
}

const SUFFIX = ".jsonl";

/** Creates the store over `<home>/sessions`. Nothing is touched until the first call. */
export function createSessionStore(deps: SessionStoreDeps): SessionStore {
  const { home, logger } = deps;
  const writers = new Set<string>();
  const scanner = createDirectoryScanner();

  const load = async (id: string): Promise<{ path: string; parsed: ParsedLog }> => {
    const path = sessionPath(home, id);
    let file: FileHandle;
    try {
      file = await open(path, "r");
    } catch (error) {
      if (isMissing(error)) throw new NotFoundError(`no session ${id}`, { sessionId: id });
      throw error;
    }
    try {
      return { path, parsed: await readLog(file, path, id) };
    } finally {
      await file.close();
    }
  };

  /**
   * Reserves the session's single writer: first in this process, then across processes with
   * the lock file. ConflictError when either is taken.
   */
  const claim = (id: string): SessionLock => {
    if (writers.has(id)) {
      throw new ConflictError(`session ${id} is already open in this process`, { sessionId: id });
    }
    writers.add(id);
    try {
      return lockSession({ path: sessionLockPath(home, id), sessionId: id, logger });
    } catch (error) {
      writers.delete(id);
      throw error;
    }
  };

  /** Gives the writer slot back; the log file must be closed already. */
  const unclaim = (id: string, lock: SessionLock) => {
    lock.release();
    writers.delete(id);
  };

  return {
    async create({ cwd }): Promise<SessionLog> {
      if (!isAbsolute(cwd)) {
        throw new InvalidInputError(`session cwd must be an absolute path: ${cwd}`, { cwd });
      }
      // Synchronous: two small calls cost less than two trips through the thread pool, and
      // the first session/new waits for them.
      mkdirSync(sessionsDir(home), { recursive: true, mode: 0o700 });
      const id = newSessionId();
      const header: SessionHeader = {
        type: "header",
        version: LOG_FORMAT_VERSION,
        id,
        cwd: resolve(cwd),
        createdAt: new Date().toISOString(),
      };
      const path = sessionPath(home, id);
      // Locked before the file exists, so no other process can open it the moment it appears.
      const lock = claim(id);
      try {
        writeFileSync(path, `${JSON.stringify(header)}\n`, { flag: "wx", mode: 0o600 });
        const onClose = () => unclaim(id, lock);
        return openSessionLog({ path, header, events: [], logger, onClose });
      } catch (error) {
        unclaim(id, lock);
        throw error;
      }
    },

    async open(id: string): Promise<SessionLog> {
      assertSessionId(id);
      // No lock file for a session that does not exist.
      if (!(await Bun.file(sessionPath(home, id)).exists())) {
        throw new NotFoundError(`no session ${id}`, { sessionId: id });
      }
      const lock = claim(id);
      try {
        // Read only under the lock: the previous writer flushed and closed before releasing it.
        const { path, parsed } = await load(id);
        const torn = parsed.validLength < parsed.fileLength;
        if (torn) {
          logger.warn("dropping a torn last line of a session log", {
            path,
            bytes: parsed.fileLength - parsed.validLength,
          });
        }
        return openSessionLog({
          path,
          header: parsed.header,
          events: parsed.events,
          truncateTo: torn ? parsed.validLength : undefined,
          logger,
          onClose: () => unclaim(id, lock),
        });
      } catch (error) {
        unclaim(id, lock);
        throw error;
      }
    },

    async delete(id: string): Promise<void> {
      assertSessionId(id);
      const path = sessionPath(home, id);
      if (!(await Bun.file(path).exists())) {
        throw new NotFoundError(`no session ${id}`, { sessionId: id });
      }
      const lock = claim(id);
      try {
        await unlink(path);
      } catch (error) {
        if (isMissing(error)) throw new NotFoundError(`no session ${id}`, { sessionId: id });
        throw error;
      } finally {
        unclaim(id, lock);
      }
    },

    list: () => listSessions(home, logger, scanner),
  };
}

/** The summaries of the logs under `<home>/sessions`, newest first, skipping what is not a log. */
async function listSessions(
  home: string,
  logger: Logger,
  scanner: DirectoryScanner,
): Promise<SessionSummary[]> {
  let names: string[];
  try {
    names = await readdir(sessionsDir(home));
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const ids = names
    .filter((name) => name.endsWith(SUFFIX))
    .map((name) => name.slice(0, -SUFFIX.length))
    .filter(isSessionId);
  // Another program may keep files here too (DeepSeek Harness also reads DSH_HOME): what is
  // not a dsh log is skipped, with one warning for all of them.
  const skipped: string[] = [];
  const summaries = await Promise.all(
    ids.map(async (id) => {
      const path = sessionPath(home, id);
      try {
        return await readSummary(path, id, scanner);
      } catch (error) {
        skipped.push(`${path}: ${errorMessage(error)}`);
        return undefined;
      }
    }),
  );
  const foreign = names.filter(
    (name) =>
      !name.startsWith(".") &&
      !name.includes(".lock") &&
      !(name.endsWith(SUFFIX) && isSessionId(name.slice(0, -SUFFIX.length))),
  );
  const notOurs = [...skipped, ...foreign.map((name) => `${name}: not a dsh session log`)];
  if (notOurs.length > 0) {
    logger.warn("skipping files in the sessions directory that are not dsh session logs", {
      dir: sessionsDir(home),
      count: notOurs.length,
      files: notOurs.slice(0, 10),
    });
  }
  return summaries
    .filter((summary) => summary !== undefined)
    .sort((a, b) => compareDesc(a.updatedAt, b.updatedAt) || compareDesc(a.id, b.id));
}

/** Bytes read from a log at a time: the file is never held whole. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Parses an open log as it is read. */
async function readLog(file: FileHandle, path: string, id: string): Promise<ParsedLog> {
  const parser = createLogParser(path, id);
  const buffer = new Uint8Array(READ_CHUNK_BYTES);
  for (;;) {
    const { bytesRead } = await file.read(buffer, 0, buffer.byteLength, null);
    if (bytesRead === 0) return parser.finish();
    // The parser copies only the unfinished line it keeps, so the buffer can be reused.
    parser.push(buffer.subarray(0, bytesRead));
  }
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

function isMissing(error: unknown): boolean {
  return errorCode(error) === "ENOENT";
}
