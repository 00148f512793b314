/**
 * The rule matcher's reading of command lines, checked against bash itself: for every line it
 * calls covered, bash (traced, with every command answering 0 and then 1, so both sides of each
 * `&&` and `||` run) runs exactly the simple commands the matcher read, word for word (and as
 * often, where no `||` can skip one), and writes no file; every other line is refused with its
 * reason class.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { parseCommand } from "../../src/rules/shell-command.ts";
import { TRACEABLE, byWords, createBashTracer, tracesAll } from "../support/bash-trace.ts";
import { runIf } from "../support/gate.ts";
import { CORPUS } from "./shell-corpus.ts";

const tracer = TRACEABLE ? createBashTracer() : undefined;
afterAll(() => tracer?.[Symbol.dispose]());

const traced = runIf(TRACEABLE, test.concurrent, "no bash to trace with");

function title(text: string): string {
  const shown = JSON.stringify(text);
  return shown.length <= 72 ? shown : `${shown.slice(0, 60)}… (${text.length} chars)`;
}

/** The distinct commands, in one order. */
function distinct(commands: readonly (readonly string[])[]): string[][] {
  const seen = new Map(commands.map((words) => [JSON.stringify(words), [...words]]));
  return [...seen.values()].sort(byWords);
}

describe("the rule matcher's corpus", () => {
  test("holds at least 200 lines, covered and refused", () => {
    const covered = CORPUS.filter(([, expected]) => expected === "covered").length;
    expect([CORPUS.length >= 200, covered >= 60, CORPUS.length - covered >= 140]).toEqual([
      true,
      true,
      true,
    ]);
  });

  for (const [text, expected] of CORPUS) {
    if (expected !== "covered") {
      test.concurrent(`refuses ${title(text)}: ${expected}`, async () => {
        expect(await parseCommand(text)).toEqual({ ok: false, reason: expected });
      });
      continue;
    }
    traced(`covers ${title(text)} as bash runs it`, async () => {
      const reading = await parseCommand(text);
      if (!reading.ok) throw new Error(`refused: ${reading.reason}`);
      if (!tracesAll(reading.commands)) throw new Error("a command named by a path: untraceable");
      const bash = tracer ?? createBashTracer();
      const [parses, passing, failing] = await Promise.all([
        bash.parses(text),
        bash.run(text, 0),
        bash.run(text, 1),
      ]);
      expect({
        parses,
        ran: distinct([...passing.commands, ...failing.commands]),
        created: [...passing.created, ...failing.created],
      }).toEqual({ parses: true, ran: distinct(reading.commands), created: [] });
      // Without `||`, every command runs when each succeeds: as many times as the matcher read.
      if (!text.includes("||")) {
        expect(passing.commands).toEqual(reading.commands.map((words) => [...words]).sort(byWords));
      }
    });
  }
});

describe("bash -n and the corpus", () => {
  traced(
    "every line bash cannot parse is refused; where the two disagree, it is these",
    async () => {
      const bash = tracer ?? createBashTracer();
      // Lines bash refuses to take as an argument (too long) or could not be given (not Unicode).
      const lines = CORPUS.filter(([text]) => text.length < 100_000 && text.isWellFormed());
      const verdicts = await Promise.all(
        lines.map(async ([text, expected]) => ({
          text,
          expected,
          parses: await bash.parses(text),
        })),
      );
      expect(verdicts.filter((v) => !v.parses && v.expected === "covered")).toEqual([]);
      const disagree = verdicts
        .filter((v) => v.parses === (v.expected === "parse-error"))
        .map((v) => [v.text.slice(0, 24), v.expected, v.parses]);
      expect(disagree).toEqual([
        // A here-document without its end: bash warns and reads to the end of the text.
        ["cat <<EOF\nx", "parse-error", true],
        // `<>` (read and write) is not in the grammar.
        ["npm test <>file", "parse-error", true],
        ["npm test 3<>file", "parse-error", true],
        // Bash keeps a backslash at the very end as a letter.
        ["echo a\\", "parse-error", true],
        // `;;` outside `case`: bash refuses it, the grammar reads an operator (refused too).
        ["git status;;touch X", "operator", false],
        // The grammar reads `((` as arithmetic; bash backs off to nested subshells.
        ["((((((((((((((((((((((((", "parse-error", true],
      ]);
    },
  );
});

describe("the escapes that widened a saved `git status` rule", () => {
  const escapes = [
    "git status '>'&touch X",
    "git status \\>&touch X",
    "git status #'\ntouch X\n#'",
    "git status # note \\\ntouch X",
  ];
  for (const text of escapes) {
    traced(`${title(text)} makes bash run touch X, and is refused`, async () => {
      const bash = tracer ?? createBashTracer();
      const run = await bash.run(text, 0);
      expect(run.commands).toContainEqual(["touch", "X"]);
      expect((await parseCommand(text)).ok).toBe(false);
    });
  }
});
