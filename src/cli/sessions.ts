/**
 * `dsh sessions`: the saved sessions of the current directory (every directory with `--all`),
 * newest first, each with its id (for `--resume`), when it was last used, in local relative
 * terms, and its title.
 */
import { terminalText } from "../render/terminal-text.ts";
import type { SessionSummary } from "../session/types.ts";
import type { CliIo } from "./io.ts";

export interface SessionsListing {
  readonly sessions: readonly SessionSummary[];
  /** The directory whose sessions are shown; undefined: every directory. */
  readonly cwd: string | undefined;
  readonly now: Date;
}

/** Prints the listing; the caller has read it from the store. Returns the exit code. */
export function printSessions(io: Pick<CliIo, "stdout">, listing: SessionsListing): number {
  const { cwd, now } = listing;
  const shown = listing.sessions.filter((session) => cwd === undefined || session.cwd === cwd);
  const elsewhere = listing.sessions.length - shown.length;
  if (shown.length === 0) {
    const more = elsewhere > 0 ? ` (${elsewhere} in other directories: dsh sessions --all)` : "";
    io.stdout.write(`no saved sessions${cwd === undefined ? "" : ` in ${safe(cwd)}`}${more}\n`);
    return 0;
  }
  const whens = shown.map((session) => relativeTime(new Date(session.updatedAt), now));
  const width = Math.max(...whens.map((when) => when.length));
  shown.forEach((session, i) => {
    const where = cwd === undefined ? `  ${safe(session.cwd)}` : "";
    const title = safe(session.title) || "(no message yet)";
    io.stdout.write(`${session.id}  ${(whens[i] ?? "").padEnd(width)}${where}  ${title}\n`);
  });
  if (elsewhere > 0)
    io.stdout.write(`(${elsewhere} more in other directories: dsh sessions --all)\n`);
  return 0;
}

/** "just now", "5 min ago", "3 h ago", "yesterday 14:05", else the local date and time. */
export function relativeTime(then: Date, now: Date): string {
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  if (Number.isNaN(seconds)) return "unknown";
  if (seconds < 60 && seconds > -60) return "just now";
  if (seconds > 0 && seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  const time = then.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (seconds > 0 && seconds < 6 * 3600) return `${Math.floor(seconds / 3600)} h ago`;
  const day = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate());
  const days = Math.round((day(now).getTime() - day(then).getTime()) / 86_400_000);
  if (days === 0) return `today ${time}`;
  if (days === 1) return `yesterday ${time}`;
  const sameYear = then.getFullYear() === now.getFullYear();
  const date = then.toLocaleDateString(undefined, {
    month: "short",
    day: "numeric",
    ...(sameYear ? {} : { year: "numeric" }),
  });
  return `${date} ${time}`;
}

function safe(text: string): string {
  return terminalText(text)
    .replace(/\s*\n\s*/g, " ")
    .trim();
}
