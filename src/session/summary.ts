/**
 * A session's listing entry, read cheaply: a summary needs only the header, the first user
 * message, the last good event and the added directories, so only those lines are parsed,
 * and a large log is read from its two ends (the whole file only when an end window does not
 * hold what is needed) and scanned in chunks for the lines that add a directory.
 */
import { DirectoryEvent, SessionEvent, SessionHeader, UserMessageEvent } from "./events.ts";
import { sessionTitle } from "./folds.ts";
import { badLine, parseLine } from "./parse-log.ts";
import type { SessionSummary } from "./types.ts";

/** Bytes read from each end of a large log. */
const WINDOW = 64 * 1024;

/**
 * Summarises the log at `path`. Throws InvalidInputError when the header is missing, invalid
 * or names another session; other lines are not checked here (opening the session does that).
 */
export async function readSummary(path: string, id: string): Promise<SessionSummary> {
  const file = Bun.file(path);
  const size = file.size;
  let whole: string[] | undefined;
  const all = async () => (whole ??= completeLines(await file.text()));
  if (size <= 2 * WINDOW) await all();

  const head = whole ?? completeLines(await file.slice(0, WINDOW).text());
  const { cwd, createdAt } = parseHeader(head[0] ?? (await all())[0], path, id);
  const firstUser = firstUserMessage(head) ?? firstUserMessage(await all());
  // A window that starts mid-file begins with part of a line: skip it.
  const tail = whole ?? completeLines(await file.slice(size - WINDOW).text()).slice(1);
  const last = lastEvent(tail) ?? lastEvent(await all());
  const added = whole === undefined ? await directoryLines(file) : whole.filter(addsDirectory);
  return {
    id,
    cwd,
    title: sessionTitle(firstUser === undefined ? [] : [firstUser]),
    createdAt,
    updatedAt: last?.at ?? createdAt,
    directories: directoriesOf(added),
  };
}

/** How a line that adds a directory starts: the log writes each event's `type` first. */
const DIRECTORY_START = '{"type":"directory"';
const DIRECTORY_BYTES = Buffer.from(`\n${DIRECTORY_START}`);
const SCAN_CHUNK = 1024 * 1024;

function addsDirectory(line: string): boolean {
  return line.startsWith(DIRECTORY_START);
}

/** The good directory events' paths, in order, without repeats (the reload's list). */
function directoriesOf(lines: readonly string[]): string[] {
  const found: string[] = [];
  for (const line of lines) {
    const parsed = parseLine(DirectoryEvent, line);
    if (parsed.ok && !found.includes(parsed.value.path)) found.push(parsed.value.path);
  }
  return found;
}

/**
 * The lines of a large log that add a directory, found by their bytes chunk by chunk: only
 * those lines are decoded. A line cut at a chunk's end is completed from the next chunk.
 */
async function directoryLines(file: ReturnType<typeof Bun.file>): Promise<string[]> {
  const lines: string[] = [];
  let carry: Buffer = Buffer.alloc(0);
  for (let at = 0; at < file.size; at += SCAN_CHUNK) {
    const bytes = Buffer.from(await file.slice(at, at + SCAN_CHUNK).arrayBuffer());
    const chunk = carry.length === 0 ? bytes : Buffer.concat([carry, bytes]);
    // What follows the chunk's last LF may be the start of a line that adds a directory.
    const lastLf = chunk.lastIndexOf(0x0a);
    const whole = lastLf < 0 ? chunk.subarray(0, 0) : chunk.subarray(0, lastLf + 1);
    carry = lastLf < 0 ? chunk : chunk.subarray(lastLf);
    for (let hit = whole.indexOf(DIRECTORY_BYTES); hit >= 0; ) {
      const end = whole.indexOf(0x0a, hit + 1);
      if (end < 0) break;
      lines.push(whole.subarray(hit + 1, end).toString("utf8"));
      hit = whole.indexOf(DIRECTORY_BYTES, end);
    }
  }
  return lines;
}

/** The lines that end in LF; what follows the last LF is a torn line, or nothing. */
function completeLines(text: string): string[] {
  const lines = text.split("\n");
  lines.pop();
  return lines;
}

function parseHeader(line: string | undefined, path: string, id: string): SessionHeader {
  if (line === undefined) throw badLine(path, 1, "missing session header");
  const header = parseLine(SessionHeader, line);
  if (!header.ok) throw badLine(path, 1, `bad session header: ${header.reason}`);
  if (header.value.id !== id) {
    throw badLine(path, 1, `header names session ${JSON.stringify(header.value.id)}`);
  }
  return header.value;
}

function firstUserMessage(lines: readonly string[]): SessionEvent | undefined {
  for (const line of lines) {
    if (!line.includes('"user_message"')) continue;
    const parsed = parseLine(UserMessageEvent, line);
    if (parsed.ok) return parsed.value;
  }
  return undefined;
}

function lastEvent(lines: readonly string[]): SessionEvent | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const parsed = parseLine(SessionEvent, lines[i] ?? "");
    if (parsed.ok) return parsed.value;
  }
  return undefined;
}
