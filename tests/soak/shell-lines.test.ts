/**
 * The rule matcher against bash on generated command lines: seeded lines built from the pieces
 * bash's grammar turns on (quotes, escapes, operators, comments, continuations, redirections,
 * expansions, odd characters). Every line the matcher calls covered is traced in bash, which
 * must parse it and run exactly the simple commands the matcher read, word for word, and write
 * no file (a line with a command named by a path is counted, not traced: see `bash-trace.ts`). 40 rounds of 50 lines by default, `DSH_SOAK=N` runs 40×N rounds.
 */
import { afterAll, expect, test } from "bun:test";
import { parseCommand } from "../../src/rules/shell-command.ts";
import { TRACEABLE, byWords, createBashTracer, tracesAll } from "../support/bash-trace.ts";
import { runIf } from "../support/gate.ts";
import { type Random, createRandom, soakScale, soakSeed } from "./soak.ts";

const seed = soakSeed();
/** Lines a round: each round is one test, so no test runs long. */
const ROUND = 50;
const rounds = 40 * soakScale();
const tracer = TRACEABLE ? createBashTracer() : undefined;
const totals = { lines: 0, covered: 0, pathNamed: 0 };
afterAll(() => {
  tracer?.[Symbol.dispose]();
  console.log(
    `soak shell lines: seed ${seed}, ${totals.lines} lines, ${totals.covered} covered ` +
      `(${totals.pathNamed} of them left out: a command named by a path, which the tracer ` +
      `cannot see), ${totals.lines - totals.covered} refused`,
  );
});

// biome-ignore format: one line of pieces reads better than 90
const PIECES = [
  "git", "status", "npm", "test", "a", "b1", "--x=y", "x#y", "é", "\u00a0", "-", ".", ",",
  "'q u'", "''", "'#'", "'>'", "'&'", "'\\'", '"d q"', '""', '"\\""', '"\\$x"', '"\\\\"', '"a\\b"',
  "\\>", "\\<", "\\&", "\\|", "\\;", "\\#", "\\ ", "\\\\", "\\'", '\\"', "\\\n", "\\",
  "#", "# c", "'", '"', ";", ";;", "&&", "||", "|", "|&", "&", ">", ">>", "<", "2>&1",
  ">/dev/null", "2>/dev/null", "</dev/null", ">&2", "0", "1", "\n", " ", "  ", "\t",
  "$x", "$(", ")", "(", "`", "{", "}", "*", "?", "[", "]", "~", "=", "A=1", "!", "\r",
];

function generate(random: Random): string {
  const parts: string[] = [];
  for (let n = random.int(1, 12); n > 0; n--) {
    parts.push(random.pick(PIECES));
    if (random.chance(0.55)) parts.push(" ");
  }
  return parts.join("");
}

/** The distinct commands, in one order. */
function distinct(commands: readonly (readonly string[])[]): string[][] {
  const seen = new Map(commands.map((words) => [JSON.stringify(words), [...words]]));
  return [...seen.values()].sort(byWords);
}

const traced = runIf(TRACEABLE, test, "no bash to trace with");
for (let round = 0; round < rounds; round++) {
  traced(
    `round ${round + 1} of ${rounds} (seed ${seed + round}): covered lines run as read`,
    async () => {
      const bash = tracer ?? createBashTracer();
      const random = createRandom(seed + round);
      const mismatches: unknown[] = [];
      const check = async (text: string) => {
        totals.lines++;
        const reading = await parseCommand(text);
        if (!reading.ok) return;
        totals.covered++;
        if (!tracesAll(reading.commands)) {
          totals.pathNamed++;
          return;
        }
        const [parses, passing, failing] = await Promise.all([
          bash.parses(text),
          bash.run(text, 0),
          bash.run(text, 1),
        ]);
        const ran = distinct([...passing.commands, ...failing.commands]);
        const read = distinct(reading.commands);
        const all = reading.commands.map((words) => [...words]).sort(byWords);
        const counted =
          text.includes("||") || JSON.stringify(passing.commands) === JSON.stringify(all);
        const created = [...passing.created, ...failing.created];
        if (
          !parses ||
          JSON.stringify(ran) !== JSON.stringify(read) ||
          !counted ||
          created.length > 0
        ) {
          mismatches.push({ text, parses, read, ran, created });
        }
      };
      const texts = Array.from({ length: ROUND }, () => generate(random));
      // A few lines at a time: each covered line is three bash runs.
      for (let i = 0; i < texts.length; i += 8) await Promise.all(texts.slice(i, i + 8).map(check));
      expect(mismatches).toEqual([]);
    },
  );
}
