/** Test helpers for the session suites: a disposable temp home, a recording logger, ids. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, silentLogger } from "../../src/log.ts";
import type { NewSessionEvent } from "../../src/session/events.ts";
import { createSessionStore } from "../../src/session/store.ts";
import type { SessionLog } from "../../src/session/types.ts";

export interface TempHome extends Disposable {
  readonly path: string;
  /** `<home>/sessions` */
  readonly sessions: string;
}

/** A fresh directory under the OS temp dir, removed on dispose. */
export function tempHome(): TempHome {
  const path = mkdtempSync(join(tmpdir(), "dsh-session-"));
  return {
    path,
    sessions: join(path, "sessions"),
    [Symbol.dispose]() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

export interface TempLog extends AsyncDisposable {
  readonly log: SessionLog;
  readonly home: TempHome;
}

/** A new session's log in a fresh temp home; disposing closes the log and removes the home. */
export async function tempLog(): Promise<TempLog> {
  const home = tempHome();
  const log = await createSessionStore({ home: home.path, logger: silentLogger }).create({
    cwd: "/w",
  });
  return {
    log,
    home,
    async [Symbol.asyncDispose]() {
      await log[Symbol.asyncDispose]();
      home[Symbol.dispose]();
    },
  };
}

export interface RecordingLogger extends Logger {
  readonly warnings: { message: string; data?: Record<string, unknown> }[];
}

/** A logger that keeps its warnings for assertions and drops the rest. */
export function recordingLogger(): RecordingLogger {
  const warnings: RecordingLogger["warnings"] = [];
  return {
    warnings,
    debug() {},
    info() {},
    warn(message, data) {
      warnings.push({ message, data });
    },
    error() {},
  };
}

/** A user message event for turn `turnId`. */
export function userMessage(turnId: string, text: string): NewSessionEvent {
  return { type: "user_message", turnId, content: [{ type: "text", text }] };
}

/** A well-formed session id. */
export const VALID_ID = "0192f0c1-6a2b-7c3d-8e4f-a0b1c2d3e4f5";

/** Ids that must never become a path, each with a readable label. */
export const HOSTILE_IDS: [string, string][] = [
  ["parent then name", "../x"],
  ["a path separator", "a/b"],
  ["the parent dir", ".."],
  ["nothing at all", ""],
  ["uppercase", VALID_ID.toUpperCase()],
  ["a trailing NUL", `${VALID_ID}\u0000`],
  ["a leading NUL", `\u0000${VALID_ID}`],
  ["1000 characters", "a".repeat(1000)],
  ["a leading space", ` ${VALID_ID}`],
  ["a trailing newline", `${VALID_ID}\n`],
  ["a valid id then a path", `${VALID_ID}/../x`],
  ["a parent then an id", `../${VALID_ID.slice(0, -3)}`],
  ["no dashes", VALID_ID.replaceAll("-", "")],
  ["a non-hex digit", VALID_ID.replace("e4f5", "e4g5")],
];
