/**
 * No command outlives `dsh acp`: the compiled binary runs a command with a child in the
 * background, sandboxed and unsandboxed, and is ended at the worst moments (the instant the command's process exists, before the sandbox
 * is set up; and once it runs) by SIGTERM, SIGHUP, SIGINT, stdin EOF or SIGKILL. After a
 * graceful end nothing of the command is left when dsh has exited; after SIGKILL, which no
 * handler sees, it is gone within the kill grace.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { createProject } from "./project.ts";
import {
  GONE_WITHIN_MS,
  cleanUp,
  processesWith,
  sleepers,
  trackedToken,
  until,
} from "./processes.ts";
import { spawnRawAcp } from "./raw-acp.ts";
import { needsSupervisor } from "../support/supervisor-gate.ts";

afterAll(cleanUp);

type Ending = "SIGTERM" | "SIGHUP" | "SIGINT" | "EOF" | "SIGKILL";
type Moment = "spawned" | "running";

const ENDINGS: readonly Ending[] = ["SIGTERM", "SIGHUP", "SIGINT", "EOF", "SIGKILL"];
/** Each mode, with how its cases are registered: the sandboxed ones need a working sandbox. */
const MODES = [
  { name: "sandboxed", config: "", test: sandboxSerialTest },
  { name: "unsandboxed", config: 'permission = "danger-full-access"\n', test },
] as const;
/**
 * Every ending at the instant the command's process exists (the race); once it runs, the
 * graceful endings share one path, so SIGTERM stands for them beside SIGKILL.
 */
const CASES: readonly { moment: Moment; endings: readonly Ending[] }[] = [
  { moment: "spawned", endings: ENDINGS },
  { moment: "running", endings: ["SIGTERM", "SIGKILL"] },
];

/** Each case waits up to GONE_WITHIN_MS twice (for the command to start, then to be gone). */
const CASE_MS = 2 * GONE_WITHIN_MS + 5_000;

interface Case {
  readonly config: string;
  /** Shell text around `sleep <token>`: `%` stands for the token. */
  readonly command: string;
  readonly moment: Moment;
  readonly ending: Ending;
}

/** Runs the command in a fresh `dsh acp`, ends dsh at `moment`, and checks nothing is left. */
async function endDuringCommand(c: Case): Promise<void> {
  const token = trackedToken();
  using project = createProject(c.config);
  await using model = await startModelServer();
  await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
  await dsh.initialize();
  const sessionId = await dsh.newSession();
  const command = c.command.replaceAll("%", token);
  model.script(toolTurn([{ id: "c1", name: "bash", args: { command } }]));
  model.script(textTurn("never reached"));
  await dsh.prompt(sessionId, "run it");
  if (c.moment === "spawned") {
    await until(
      "the command's process exists",
      () => processesWith(token).length > 0,
      GONE_WITHIN_MS,
    );
  } else {
    await until("both sleepers run", () => sleepers(token) === 2, GONE_WITHIN_MS);
  }
  if (c.ending === "EOF") {
    expect(await dsh.closeStdin()).toBe(0);
  } else {
    dsh.proc.kill(c.ending);
    await dsh.proc.exited;
  }
  if (c.ending === "SIGKILL") {
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
}

describe("no command outlives dsh acp", () => {
  for (const mode of MODES) {
    for (const { moment, endings } of CASES) {
      for (const ending of endings) {
        // Only the supervisor chain ends a command whose dsh was SIGKILLed.
        const register = ending === "SIGKILL" ? needsSupervisor(mode.test) : mode.test;
        register(
          `${mode.name}, ${ending} once the command is ${moment}`,
          () =>
            endDuringCommand({
              config: mode.config,
              command: "sleep % & sleep %; wait",
              moment,
              ending,
            }),
          CASE_MS,
        );
      }
    }
  }
});

describe("no command outlives dsh acp, even one that ignores SIGTERM, SIGHUP and SIGINT", () => {
  const command = "trap '' TERM HUP INT; sleep % & sleep %; wait";
  const config = MODES[1].config;
  // Unsandboxed, a graceful end gives the group its SIGTERM grace (2 s), then SIGKILL.
  for (const ending of ["SIGTERM", "SIGKILL"] as const) {
    const register = ending === "SIGKILL" ? needsSupervisor(test) : test;
    register(
      `unsandboxed, ${ending} once the command runs`,
      () => endDuringCommand({ config, command, moment: "running", ending }),
      CASE_MS,
    );
  }
});
