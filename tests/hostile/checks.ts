/**
 * What "loses nothing" means for a session after hostile input: its log file is whole (every
 * line valid, LF-terminated, `seq` strictly increasing, every turn ended unless dsh died), and
 * the model requests it leads to are well formed (every assistant tool call answered).
 */
import { readFile } from "node:fs/promises";
import * as v from "valibot";
import { SessionEvent, SessionHeader } from "../../src/session/events.ts";

/** A log read strictly: any torn or invalid line is an error here, not a crash artifact. */
export async function readStrictLog(path: string): Promise<SessionEvent[]> {
  const text = await readFile(path, "utf8");
  if (!text.endsWith("\n")) throw new Error(`${path} does not end with a newline (torn last line)`);
  const [first = "", ...rest] = text.slice(0, -1).split("\n");
  const header = v.safeParse(SessionHeader, JSON.parse(first));
  if (!header.success) throw new Error(`${path}: bad header: ${first.slice(0, 200)}`);
  const events = rest.map((line, i) => {
    const event = v.safeParse(SessionEvent, JSON.parse(line));
    if (!event.success) throw new Error(`${path}, line ${i + 2}: ${v.summarize(event.issues)}`);
    return event.output;
  });
  for (const [i, event] of events.entries()) {
    const before = events[i - 1];
    if (before !== undefined && event.seq <= before.seq)
      throw new Error(`${path}: seq goes back at line ${i + 2}`);
  }
  return events;
}

/** The ids of turns that started and never ended (only a killed dsh may leave one). */
export function openTurns(events: readonly SessionEvent[]): string[] {
  const started = events.filter((e) => e.type === "turn_start").map((e) => e.turnId);
  const ended = new Set(events.flatMap((e) => (e.type === "turn_end" ? [e.turnId] : [])));
  return started.filter((id) => !ended.has(id));
}

/** The end reasons of the log's turns, in order. */
export function endReasons(events: readonly SessionEvent[]): string[] {
  return events.flatMap((e) => (e.type === "turn_end" ? [e.reason] : []));
}

const Messages = v.array(
  v.looseObject({
    role: v.string(),
    tool_calls: v.optional(v.array(v.looseObject({ id: v.string() }))),
    tool_call_id: v.optional(v.string()),
  }),
);

/**
 * Problems with a chat request's history: an assistant tool call without a `tool` answer
 * before the next assistant or user message, or a `tool` message answering nothing.
 */
export function historyProblems(body: Record<string, unknown>): string[] {
  const parsed = v.safeParse(Messages, body.messages);
  if (!parsed.success) return ["`messages` is not an array of messages"];
  const problems: string[] = [];
  let open = new Set<string>();
  for (const [i, message] of parsed.output.entries()) {
    if (message.role === "tool") {
      const id = message.tool_call_id ?? "";
      if (!open.delete(id)) problems.push(`message ${i}: tool answer to unknown call ${id}`);
      continue;
    }
    for (const id of open) problems.push(`tool call ${id} unanswered before message ${i}`);
    open = new Set((message.tool_calls ?? []).map((call) => call.id));
  }
  for (const id of open) problems.push(`tool call ${id} unanswered at the end`);
  return problems;
}
