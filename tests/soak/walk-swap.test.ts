/**
 * Two sessions in one project, through the compiled binary: one session's command swaps a
 * directory `p` for a link to a directory outside the project, in a tight loop, while the
 * other session's commands plant repositories in `p` and dsh removes them after each command.
 * Every removal is a chance for the swap to redirect it; none may reach outside the project.
 * (Every interleaving of one swap with one removal is tried deterministically in
 * `tests/exec/remove-beneath.test.ts`.) 3 rounds by default, `DSH_SOAK=N` runs 3×N.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initRepo } from "../exec/git-support.ts";
import { type CliProject, type CliRig, type CliRun, startCliRig } from "../support/cli.ts";
import { type ModelServer, startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { soakScale } from "./soak.ts";

const rounds = 3 * soakScale();
/** Repositories each planting command makes, and planting commands per round. */
const plants = 60;
const commands = 3;
const totals = { removedThroughP: 0, linksRemoved: 0, victimsLost: 0 };
let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-walk-swap");
});

afterAll(async () => {
  console.log(
    `soak walk-swap: ${rounds} rounds, ${totals.removedThroughP} removals through the swapped ` +
      `directory, ${totals.linksRemoved} swapped-in links removed, ${totals.victimsLost} ` +
      "repositories outside the project lost",
  );
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

/** Shell text running `code` (JavaScript) in the Bun that runs the tests, with `args`. */
function script(code: string, ...args: string[]): string {
  return `${process.execPath} -e "${code}" ${args.join(" ")}`;
}

/**
 * Swaps `p` and the link `p.link` (to argv[1]) in one step (renameat2 with RENAME_EXCHANGE,
 * through bun:ffi), over and over until `stop` exists, so that `p` is a directory one moment
 * and a link the next; remakes the link when dsh removed it.
 */
const SWAP_LOOP = [
  "const fs = require('fs'); const { dlopen, ptr } = require('bun:ffi');",
  "const libc = dlopen('libc.so.6', { syscall: { args: ['i64', 'i64', 'i64', 'i64', 'i64', 'i64'], returns: 'i64' } });",
  `const nr = process.arch === 'arm64' ? 276 : 316;`,
  "const a = Buffer.from('p\\0'); const b = Buffer.from('p.link\\0');",
  "const exchange = () => libc.symbols.syscall(nr, -100, ptr(a), -100, ptr(b), 2);",
  // p missing (dsh removed the link while it was there): the directory comes back first.
  "const heal = () => { try { fs.lstatSync('p'); } catch { try { fs.renameSync('p.link', 'p'); } catch {} }",
  "  try { fs.lstatSync('p.link'); } catch { try { fs.symlinkSync(process.argv[1], 'p.link'); } catch {} } };",
  "fs.writeFileSync('swapping', '');",
  "while (!fs.existsSync('stop')) {",
  "  heal(); exchange(); exchange();",
  // By turns two milliseconds a directory (so that walks list it), one flipping.
  "  if (Date.now() % 3 !== 0) { const until = Date.now() + 1; while (Date.now() < until); }",
  "}",
  "heal(); if (fs.lstatSync('p').isSymbolicLink()) exchange();",
].join(" ");

/** Plants `plants` repositories named `y<i><argv[1]>` in `p` (or where it is just now). */
const PLANT_LOOP = [
  "const fs = require('fs'); let planted = 0;",
  "while (!fs.existsSync('swapping')) {}",
  `for (let i = 0; i < ${plants}; i++) for (const d of ['p', 'p.link']) {`,
  "  try { if (fs.lstatSync(d).isSymbolicLink()) continue; const r = d + '/y' + i + process.argv[1];",
  "    fs.mkdirSync(r); fs.mkdirSync(r + '/.git'); fs.writeFileSync(r + '/.git/HEAD', '');",
  "    planted++; break; } catch {}",
  "}",
  "console.log('planted', planted);",
].join(" ");

/** One `bash` tool turn per command, then "Done.". */
function scriptCommands(server: ModelServer, lines: readonly string[]): void {
  server.script(
    ...lines.map((command, i) =>
      toolTurn([{ id: `b${i}`, name: "bash", args: { command, timeout_ms: 600_000 } }]),
    ),
    textTurn("Done."),
  );
}

function sessionLog(project: CliProject, run: CliRun): string {
  const id = /session ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? "";
  return readFileSync(join(project.home, "sessions", `${id}.jsonl`), "utf8");
}

describe("two sessions in one project", () => {
  for (let round = 0; round < rounds; round++) {
    sandboxSerialTest(
      `round ${round + 1} of ${rounds}: a link the other command swaps in never redirects dsh's removal`,
      async () => {
        const project = rig.project(`swap-${round}`);
        initRepo(project.cwd);
        mkdirSync(join(project.cwd, "p"));
        // What a redirected removal would delete: a repository outside the project per plant.
        const victim = join(project.base, "victim");
        const names = Array.from({ length: commands }, (_, n) =>
          Array.from({ length: plants }, (_, i) => `y${i}${n}`),
        ).flat();
        for (const name of names) {
          mkdirSync(join(victim, name, ".git"), { recursive: true });
          writeFileSync(join(victim, name, ".git", "HEAD"), "ref: refs/heads/main\n");
        }
        await using other = await startModelServer();
        scriptCommands(other, [
          `${script(SWAP_LOOP, victim)}; rm -f swapping stop p.link; echo swapped`,
        ]);
        const swapper = rig.start(["exec", "swap"], project, {
          env: { ...project.env, DSH_BASE_URL: other.url },
        });
        scriptCommands(
          rig.server,
          Array.from({ length: commands }, (_, n) => script(PLANT_LOOP, String(n))),
        );
        const run = await rig.run(["exec", "plant"], project);
        writeFileSync(join(project.cwd, "stop"), "");
        const swapped = await swapper.done;
        const log = sessionLog(project, run);
        const lost = names.filter((name) => !existsSync(join(victim, name, ".git", "HEAD")));
        totals.removedThroughP += log.match(/\[dsh removed [^ ]*\/p\/y/g)?.length ?? 0;
        totals.linksRemoved += log.match(/\[dsh removed [^ ]*\/p: /g)?.length ?? 0;
        totals.victimsLost += lost.length;
        expect({ codes: [run.code, swapped.code], lost }).toEqual({ codes: [0, 0], lost: [] });
        expect(log).toMatch(/planted [1-9]/);
        expect(other.failures).toEqual([]);
      },
    );
  }
});
