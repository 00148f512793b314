/**
 * The chat's input history, kept across sessions in one file of dsh's state directory (which
 * commands never see and file tools never read): one JSON string per line, newest last, the
 * last `MAX_ENTRIES` kept. An unreadable file or line is skipped: history is a convenience.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import * as v from "valibot";
import { terminalText } from "../render/terminal-text.ts";

const MAX_ENTRIES = 500;
const HistoryLine = v.string();

export interface History {
  entries(): readonly string[];
  /** Adds an entry (a repeat of the last one is not added twice) and saves it. */
  add(entry: string): void;
}

/** The history in `path`; undefined: kept in memory only. */
export function openHistory(path: string | undefined): History {
  const entries = path === undefined ? [] : load(path);
  return {
    entries: () => entries,
    add(entry) {
      if (entries.at(-1) === entry) return;
      entries.push(entry);
      if (path === undefined) return;
      try {
        if (entries.length > MAX_ENTRIES * 2) {
          entries.splice(0, entries.length - MAX_ENTRIES);
          writeFileSync(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(""), {
            mode: 0o600,
          });
        } else appendFileSync(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
      } catch {
        // A history that cannot be saved still works for this session.
      }
    },
  };
}

function load(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const parsed = v.safeParse(HistoryLine, JSON.parse(line));
      if (parsed.success) entries.push(terminalText(parsed.output));
    } catch {
      // A torn or foreign line: skipped.
    }
  }
  return entries.slice(-MAX_ENTRIES);
}
