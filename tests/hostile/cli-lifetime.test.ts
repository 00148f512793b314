/**
 * No command outlives `dsh exec` or `dsh chat`: the compiled binary is ended the instant the
 * command's process exists, sandboxed and unsandboxed. SIGTERM and SIGHUP (a closed terminal)
 * exit through the runner's exit hook, which kills and awaits every command; SIGINT cancels
 * the turn; after SIGKILL the command is gone within the kill grace.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { GONE_WITHIN_MS, cleanUp, processesWith, trackedToken, until } from "./processes.ts";
import { needsSupervisor } from "../support/supervisor-gate.ts";

afterAll(cleanUp);

type Ending = "SIGTERM" | "SIGHUP" | "SIGINT" | "SIGKILL";

/** Each mode, with how its cases are registered: the sandboxed ones need a working sandbox. */
const MODES = [
  { name: "sandboxed", config: "", test: sandboxSerialTest },
  { name: "unsandboxed", config: 'permission = "danger-full-access"\n', test },
] as const;
const SURFACES: readonly { name: "exec" | "chat"; endings: readonly Ending[] }[] = [
  { name: "exec", endings: ["SIGTERM", "SIGHUP", "SIGINT", "SIGKILL"] },
  // Chat's SIGINT cancels the turn and waits at the prompt; the exit paths are the others.
  { name: "chat", endings: ["SIGTERM", "SIGHUP", "SIGKILL"] },
];

let rig: CliRig;
beforeAll(async () => {
  rig = await startCliRig("dsh-lifetime");
});
afterAll(async () => {
  await rig[Symbol.asyncDispose]();
});

describe("no command outlives dsh exec or dsh chat", () => {
  for (const surface of SURFACES) {
    for (const mode of MODES) {
      for (const ending of surface.endings) {
        // Only the supervisor chain ends a command whose dsh was SIGKILLed.
        const register = ending === "SIGKILL" ? needsSupervisor(mode.test) : mode.test;
        register(
          `${surface.name}, ${mode.name}, ${ending} once the command's process exists`,
          async () => {
            const token = trackedToken();
            const project = rig.project(`${surface.name}-${mode.name}-${ending}`, mode.config);
            const command = `sleep ${token} & sleep ${token}; wait`;
            // A server of its own: an ended turn leaves its unused script behind.
            await using model = await startModelServer();
            model.script(toolTurn([{ id: "c1", name: "bash", args: { command } }]));
            model.script(textTurn("done"));
            const proc = Bun.spawn(
              [rig.binary, surface.name, ...(surface.name === "exec" ? ["run it"] : [])],
              {
                cwd: project.cwd,
                env: { ...project.env, DSH_BASE_URL: model.url },
                stdin: surface.name === "chat" ? "pipe" : "ignore",
                stdout: "ignore",
                stderr: "ignore",
              },
            );
            if (proc.stdin !== undefined && typeof proc.stdin !== "number") {
              proc.stdin.write("run it\n");
              await proc.stdin.flush();
            }
            await until(
              "the command's process exists",
              () => processesWith(token).length > 0,
              GONE_WITHIN_MS,
            );
            proc.kill(ending);
            if (ending === "SIGINT") {
              // The turn is cancelled, which waits for the command's group to be gone.
              expect(await proc.exited).toBe(130);
            } else {
              await proc.exited;
            }
            if (ending === "SIGKILL") {
              await until(
                "the command is gone",
                () => processesWith(token).length === 0,
                GONE_WITHIN_MS,
              );
            } else {
              expect(processesWith(token)).toEqual([]);
            }
          },
        );
      }
    }
  }
});
