/**
 * A session's listing entry, read cheaply: a summary needs only the header, the first user
 * message, the last good event and the added directories, so only those lines are parsed,
 * and a large log is read from its two ends (the whole file only when an end window does not
 * hold what is needed); its lines that add a directory are found by `directory-scan.ts`.
 */
import { DIRECTORY_START, type DirectoryScanner } from "./directory-scan.ts";
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
export async function readSummary(
  path: string,
  id: string,
  scanner: DirectoryScanner,
): Promise<SessionSummary> {
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
  const added = whole === undefined ? await scanner.lines(path) : whole.filter(addsDirectory);
  return {
    id,
    cwd,
    title: sessionTitle(firstUser === undefined ? [] : [firstUser]),
    createdAt,
    updatedAt: last?.at ?? createdAt,
    directories: directoriesOf(added),
  };
}

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
