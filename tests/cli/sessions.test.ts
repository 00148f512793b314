import { describe, expect, test } from "bun:test";
import { printSessions, relativeTime } from "../../src/cli/sessions.ts";
import type { SessionSummary } from "../../src/session/types.ts";

const now = new Date(2026, 5, 15, 12, 0, 0);
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const session = (id: string, cwd: string, title: string, updatedAt: string): SessionSummary => ({
  id,
  cwd,
  title,
  createdAt: updatedAt,
  updatedAt,
  directories: [],
});

function listing(cwd: string | undefined, sessions: SessionSummary[]): string {
  let out = "";
  printSessions({ stdout: { write: (text) => void (out += text) } }, { sessions, cwd, now });
  return out;
}

describe("dsh sessions", () => {
  const sessions = [
    session("id-1", "/p/app", "fix the test", ago(30_000)),
    session("id-2", "/p/other", "elsewhere", ago(5 * 60_000)),
    session("id-3", "/p/app", "title \u001b]0;x\u0007with\nnewline", ago(26 * 3600_000)),
  ];

  test("shows the current directory's sessions with relative times, and says how many are elsewhere", () => {
    const yesterday = relativeTime(new Date(ago(26 * 3600_000)), now);
    const width = yesterday.length;
    expect(listing("/p/app", sessions)).toBe(
      [
        `id-1  ${"just now".padEnd(width)}  fix the test`,
        `id-3  ${yesterday}  title with newline`,
        "(1 more in other directories: dsh sessions --all)",
        "",
      ].join("\n"),
    );
  });

  test("--all shows every directory", () => {
    const out = listing(undefined, sessions);
    expect(out).toContain("id-2  5 min ago");
    expect(out).toContain("/p/other  elsewhere");
  });

  test("an empty directory points at --all", () => {
    expect(listing("/p/none", sessions)).toBe(
      "no saved sessions in /p/none (3 in other directories: dsh sessions --all)\n",
    );
  });

  test("relative times read as a person says them", () => {
    const at = (h: number, m = 0) => new Date(2026, 5, 15, h, m);
    expect(relativeTime(at(11, 58), now)).toBe("2 min ago");
    expect(relativeTime(at(9), now)).toBe("3 h ago");
    expect(relativeTime(at(1), now)).toStartWith("today ");
    expect(relativeTime(new Date(2026, 5, 14, 20), now)).toStartWith("yesterday ");
    expect(relativeTime(new Date(2025, 0, 2), now)).toContain("2025");
  });
});
