/**
 * A session's listing entry, read cheaply: the header, the first user message and the last
 * good event are all a summary needs, so only those lines are parsed and validated.
 */
import { SessionEvent, SessionHeader, UserMessageEvent } from "./events.ts";
import { sessionTitle } from "./folds.ts";
import { badLine, parseLine } from "./parse-log.ts";
import type { SessionSummary } from "./types.ts";

/**
 * Summarises a log's text. Throws InvalidInputError when the header is missing, invalid or
 * names another session; other lines are not checked here (opening the session does that).
 */
export function summarizeLog(text: string, path: string, id: string): SessionSummary {
  const lines = text.split("\n");
  // The part after the last LF is a torn line, or "" for a whole file.
  lines.pop();
  const first = lines[0];
  if (first === undefined) throw badLine(path, 1, "missing session header");
  const header = parseLine(SessionHeader, first);
  if (!header.ok) throw badLine(path, 1, `bad session header: ${header.reason}`);
  if (header.value.id !== id) {
    throw badLine(path, 1, `header names session ${JSON.stringify(header.value.id)}`);
  }
  const { cwd, createdAt } = header.value;
  return {
    id,
    cwd,
    title: sessionTitle(firstUserMessage(lines)),
    createdAt,
    updatedAt: lastEvent(lines)?.at ?? createdAt,
  };
}

function firstUserMessage(lines: readonly string[]): SessionEvent[] {
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line === undefined || !line.includes('"user_message"')) continue;
    const parsed = parseLine(UserMessageEvent, line);
    if (parsed.ok) return [parsed.value];
  }
  return [];
}

function lastEvent(lines: readonly string[]): SessionEvent | undefined {
  for (let i = lines.length - 1; i >= 1; i--) {
    const line = lines[i];
    if (line === undefined) continue;
    const parsed = parseLine(SessionEvent, line);
    if (parsed.ok) return parsed.value;
  }
  return undefined;
}
