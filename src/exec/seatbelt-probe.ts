/**
 * Proves the macOS backend works as commands will use it: dsh's own profile, built for a
 * scratch workspace exactly as for a real one, must compile and run a process, and the sweep
 * (`sandbox-sweep.ts`) must find that process in its sandbox and end it. A profile macOS
 * rejects, a `sandbox-exec` that cannot apply (dsh itself inside a sandbox), or a sandbox dsh
 * cannot find processes in, each makes the backend unavailable: commands then ask or are
 * refused, never run with less than the README says.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../log.ts";
import { sharedWatchdog } from "./lifetime.ts";
import { isExecutableFile } from "./locate.ts";
import { firstLine, runQuiet } from "./probe.ts";
import { sandboxProcesses, sweepSandbox } from "./sandbox-sweep.ts";
import type { ProcessCalls } from "./sandbox-sweep.ts";
import { SANDBOX_EXEC, seatbeltArgs } from "./seatbelt.ts";
import type { SeatbeltPlan } from "./seatbelt.ts";
import type { SandboxStatus } from "./types.ts";

export interface SeatbeltProbeInput {
  /** The plan commands get, for a workspace and the command's temp directory (realpaths). */
  readonly plan: (workspace: string, tempDir: string) => SeatbeltPlan;
  readonly calls: ProcessCalls;
  readonly timeoutMs: number;
  readonly logger: Logger;
}

const POLL_MS = 10;

/** Runs `sleep` under the real profile and sweeps it. Never throws. */
export async function probeSeatbelt(input: SeatbeltProbeInput): Promise<SandboxStatus> {
  const fail = (reason: string, fix: string): SandboxStatus => ({
    backend: "seatbelt",
    ok: false,
    reason,
    fix,
  });
  if (!isExecutableFile(SANDBOX_EXEC)) {
    return fail(`${SANDBOX_EXEC} is missing`, "dsh needs macOS's sandbox-exec");
  }
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "dsh-probe-")));
  const temp = realpathSync(mkdtempSync(join(tmpdir(), "dsh-probe-tmp-")));
  const watchdog = sharedWatchdog(input.logger);
  watchdog.holdSandbox(temp);
  try {
    const plan = input.plan(scratch, temp);
    let found = false;
    let exited = false;
    const watch = async (pid: number) => {
      const deadline = performance.now() + input.timeoutMs;
      while (!exited && performance.now() < deadline) {
        if (sandboxProcesses(temp, { calls: input.calls }).includes(pid)) {
          found = true;
          sweepSandbox(temp, { calls: input.calls });
          return;
        }
        await Bun.sleep(POLL_MS);
      }
    };
    let watching: Promise<void> = Promise.resolve();
    const run = await runQuiet(
      seatbeltArgs(plan, ["/bin/sleep", "30"]),
      input.timeoutMs * 2,
      input.logger,
      undefined,
      (pid) => {
        watching = watch(pid);
      },
    );
    exited = true;
    await watching;
    if (found) return { backend: "seatbelt", ok: true };
    if (run.code !== null) {
      return fail(
        `sandbox-exec failed: ${firstLine(run.stderr) || `exit ${run.code}`}`,
        "dsh is probably running inside another sandbox (nested sandboxes are denied): run it " +
          "outside that sandbox, or choose the danger-full-access preset",
      );
    }
    return fail(
      "dsh cannot find a command's processes in its sandbox (sandbox_check saw none), so it " +
        "could not end the ones that leave the command's process group",
      "choose the danger-full-access preset, and report this with your macOS version",
    );
  } catch (error) {
    return fail(`the sandbox probe failed: ${String(error)}`, "run `dsh doctor` to see why");
  } finally {
    sweepSandbox(temp, { calls: input.calls });
    watchdog.releaseSandbox(temp);
    rmSync(scratch, { recursive: true, force: true });
    rmSync(temp, { recursive: true, force: true });
  }
}
