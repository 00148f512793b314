/**
 * No command outlives `dsh acp`: the compiled binary runs a command with a child in the
 * background, sandboxed and unsandboxed, and is
 * ended at the worst moments (the instant the command's process exists, before the sandbox
 * is set up; and once it runs) by SIGTERM, SIGHUP, SIGINT, stdin EOF or SIGKILL. After a
 * graceful end nothing of the command is left when dsh has exited; after SIGKILL, which no
 * handler sees, it is gone within the kill grace.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { createProject } from "./project.ts";
import { spawnRawAcp } from "./raw-acp.ts";

type Ending = "SIGTERM" | "SIGHUP" | "SIGINT" | "EOF" | "SIGKILL";
type Moment = "spawned" | "running";

const ENDINGS: readonly Ending[] = ["SIGTERM", "SIGHUP", "SIGINT", "EOF", "SIGKILL"];
const MODES = [
  { name: "sandboxed", config: "" },
  { name: "unsandboxed", config: 'permission = "danger-full-access"\n' },
] as const;
/**
 * Every ending at the instant the command's process exists (the race); once it runs, the
 * graceful endings share one path, so SIGTERM stands for them beside SIGKILL.
 */
const CASES: readonly { moment: Moment; endings: readonly Ending[] }[] = [
  { moment: "spawned", endings: ENDINGS },
  { moment: "running", endings: ["SIGTERM", "SIGKILL"] },
];
/** Room for a loaded machine; only the SIGKILL case waits for the command to go at all. */
const GONE_WITHIN_MS = 10_000;

const tokens: string[] = [];
afterAll(() => {
  for (const token of tokens) for (const { pid } of processesWith(token)) killQuietly(pid);
});

/** Processes whose argv mentions `token`: the supervisor chain, bwrap, the shells, the sleeps. */
function processesWith(token: string): { pid: number; argv: string[] }[] {
  const found: { pid: number; argv: string[] }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv.some((arg) => arg.includes(token))) found.push({ pid: Number(entry), argv });
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Resolves once `ready()` holds; rejects after `withinMs` with `what`. */
async function until(what: string, ready: () => boolean, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    // /proc has no change event: poll it.
    await Bun.sleep(2);
  }
}

const sleepers = (token: string) =>
  processesWith(token).filter(({ argv }) => argv[0] === "sleep" && argv[1] === token).length;

describe("no command outlives dsh acp", () => {
  for (const mode of MODES) {
    for (const { moment, endings } of CASES) {
      for (const ending of endings) {
        test(`${mode.name}, ${ending} once the command is ${moment}`, async () => {
          const token = `1000.${Math.floor(Math.random() * 1e9)}`;
          tokens.push(token);
          using project = createProject(mode.config);
          await using model = await startModelServer();
          await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
          await dsh.initialize();
          const sessionId = await dsh.newSession();
          const command = `sleep ${token} & sleep ${token}; wait`;
          model.script(toolTurn([{ id: "c1", name: "bash", args: { command } }]));
          model.script(textTurn("never reached"));
          await dsh.prompt(sessionId, "run it");
          if (moment === "spawned") {
            await until(
              "the command's process exists",
              () => processesWith(token).length > 0,
              GONE_WITHIN_MS,
            );
          } else {
            await until("both sleepers run", () => sleepers(token) === 2, GONE_WITHIN_MS);
          }
          if (ending === "EOF") {
            expect(await dsh.closeStdin()).toBe(0);
          } else {
            dsh.proc.kill(ending);
            await dsh.proc.exited;
          }
          if (ending === "SIGKILL") {
            await until(
              "the command is gone after dsh was killed",
              () => processesWith(token).length === 0,
              GONE_WITHIN_MS,
            );
          } else {
            // A graceful end waits for every group it started: nothing is left at exit.
            expect({ code: dsh.proc.exitCode, left: processesWith(token) }).toEqual({
              code: 0,
              left: [],
            });
          }
          expect(dsh.problems).toEqual([]);
        });
      }
    }
  }
});
