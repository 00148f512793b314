/**
 * No command outlives `dsh acp`: the compiled binary runs a command with a child in the
 * background, sandboxed and unsandboxed, and is ended at the worst moments (the instant the command's process exists, before the sandbox
 * is set up; and once it runs) by SIGTERM, SIGHUP, SIGINT, stdin EOF or SIGKILL. After a
 * graceful end nothing of the command is left when dsh has exited; after SIGKILL, which no
 * handler sees, it is gone within the kill grace.
 */
import { describe, expect, test } from "bun:test";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { createProject } from "./project.ts";
import { GONE_WITHIN_MS, processesWith, sleepers, trackedToken, until } from "./processes.ts";
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

describe("no command outlives dsh acp", () => {
  for (const mode of MODES) {
    for (const { moment, endings } of CASES) {
      for (const ending of endings) {
        test(`${mode.name}, ${ending} once the command is ${moment}`, async () => {
          const token = trackedToken();
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
