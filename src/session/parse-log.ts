/**
 * Reading a session log's bytes. Lines are split on LF only (never readline: U+2028 and U+2029
 * are legal inside JSON strings). Every line is validated; a bad *last* line is a crash
 * artifact and is dropped, a bad line anywhere else is an error naming the file and line.
 */
import * as v from "valibot";
import { InvalidInputError } from "../errors.ts";
import { SessionEvent, SessionHeader, sessionEventVariant } from "./events.ts";
import { type ExactShapeCheck, exactShapeCheck } from "./exact-shape.ts";

/** A log as read from disk, plus where its well-formed prefix ends. */
export interface ParsedLog {
  readonly header: SessionHeader;
  readonly events: SessionEvent[];
  /** Byte length of the header and the good events, each with its LF. */
  readonly validLength: number;
  /** Byte length of the file as read; more than `validLength` when a torn line was dropped. */
  readonly fileLength: number;
}

const LF = 0x0a;
const decoder = new TextDecoder("utf-8", { fatal: true });
/**
 * Most logged events are already exactly their schema's output: valibot sees only the rest.
 * Built at the first log read, not when a new session's log is made.
 */
let exactEvent: ExactShapeCheck | undefined;
const isExactEvent: ExactShapeCheck = (value) => {
  exactEvent ??= exactShapeCheck(sessionEventVariant());
  return exactEvent(value);
};

/** One line's outcome: its value, or why it is not one. */
export type LineResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Decodes, JSON-parses and validates one line against `schema`. Never throws. A value `exact`
 * vouches for (a check built from the same schema) is taken as it is; any other goes through
 * valibot.
 */
export function parseLine<T>(
  schema: v.GenericSchema<unknown, T>,
  line: Uint8Array | string,
  exact?: ExactShapeCheck,
): LineResult<T> {
  let json: unknown;
  try {
    json = JSON.parse(typeof line === "string" ? line : decoder.decode(line));
  } catch (error) {
    return { ok: false, reason: `not JSON (${error instanceof Error ? error.message : "?"})` };
  }
  if (exact?.(json) === true) return { ok: true, value: json as T };
  const result = v.safeParse(schema, json);
  if (result.success) return { ok: true, value: result.output };
  return { ok: false, reason: describeIssues(result.issues) };
}

/** The first validation issue as `path: message`, on one line. */
export function describeIssues(
  issues: readonly [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]],
): string {
  const first = issues[0];
  return `${v.getDotPath(first) ?? "(root)"}: ${first.message}`;
}

/** The error for a bad line: names the file and the 1-based line number. */
export function badLine(path: string, line: number, reason: string): InvalidInputError {
  return new InvalidInputError(`corrupt session log ${path}, line ${line}: ${reason}`, {
    path,
    line,
  });
}

/**
 * Parses a whole log. `id` is the session id the file name promises; the header must agree.
 * Throws InvalidInputError for a missing or bad header, a bad line before the last one, or a
 * `seq` that does not continue 1, 2, ….
 */
export function parseLog(bytes: Uint8Array, path: string, id: string): ParsedLog {
  const parser = createLogParser(path, id);
  parser.push(bytes);
  return parser.finish();
}

/** A log read piece by piece: only the line being cut across two pieces is ever copied. */
export interface LogParser {
  /** Takes the next bytes of the file; throws as `parseLog` does, as soon as it can tell. */
  push(chunk: Uint8Array): void;
  /** The end of the file: the log, or the error `parseLog` gives for the same bytes. */
  finish(): ParsedLog;
}

/** Starts reading the log of session `id` at `path` (both only for checks and messages). */
export function createLogParser(path: string, id: string): LogParser {
  let header: SessionHeader | undefined;
  const events: SessionEvent[] = [];
  let lineNumber = 0;
  let fileLength = 0;
  let validLength = 0;
  /** The start of a line whose LF has not come yet. */
  let partial: Uint8Array[] = [];
  /** A bad line with its LF: dropped if it is the last, an error once anything follows it. */
  let bad: InvalidInputError | undefined;

  const takeLine = (line: Uint8Array) => {
    lineNumber += 1;
    if (header === undefined) {
      header = parseHeader(line, path, id);
      validLength = line.byteLength + 1;
      return;
    }
    const parsed = inSequence(parseLine(SessionEvent, line, isExactEvent), events.length + 1);
    if (!parsed.ok) {
      // A bad last line is what a crash leaves behind (a torn write, zero-filled blocks).
      bad = badLine(path, lineNumber, parsed.reason);
      return;
    }
    events.push(parsed.value);
    validLength += line.byteLength + 1;
  };

  return {
    push(chunk) {
      if (chunk.byteLength === 0) return;
      if (bad !== undefined) throw bad;
      fileLength += chunk.byteLength;
      let start = 0;
      for (let end = chunk.indexOf(LF); end >= 0; end = chunk.indexOf(LF, start)) {
        if (bad !== undefined) throw bad;
        const piece = chunk.subarray(start, end);
        // Joined once, at the line's end: a line across many pieces is copied only twice.
        takeLine(partial.length === 0 ? piece : Buffer.concat([...partial, piece]));
        partial = [];
        start = end + 1;
      }
      if (start < chunk.byteLength) {
        if (bad !== undefined) throw bad;
        partial.push(chunk.subarray(start).slice());
      }
    },
    finish() {
      // No LF at the end: the writer died mid-line. Whatever it holds is dropped, as is a bad
      // last line; only the header needs its LF.
      if (header === undefined) throw badLine(path, 1, "missing session header");
      return { header, events, validLength, fileLength };
    },
  };
}

function parseHeader(line: Uint8Array, path: string, id: string): SessionHeader {
  const header = parseLine(SessionHeader, line);
  if (!header.ok) throw badLine(path, 1, `bad session header: ${header.reason}`);
  if (header.value.id !== id) {
    throw badLine(path, 1, `header names session ${JSON.stringify(header.value.id)}`);
  }
  return header.value;
}

function inSequence(parsed: LineResult<SessionEvent>, expected: number): LineResult<SessionEvent> {
  if (!parsed.ok || parsed.value.seq === expected) return parsed;
  return { ok: false, reason: `seq ${parsed.value.seq} where ${expected} was expected` };
}
