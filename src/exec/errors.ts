/** Errors of the command runner. */
import { DshError } from "../errors.ts";
import type { SandboxStatus } from "./types.ts";

/**
 * A sandboxed run was asked of a runner whose backend does not work. The message says why
 * and how an administrator fixes it; the command was not started.
 */
export class SandboxUnavailableError extends DshError<"sandbox_unavailable"> {
  readonly status: SandboxStatus;

  constructor(status: SandboxStatus) {
    const fix = status.fix === undefined ? "" : ` Fix: ${status.fix}`;
    super(
      "sandbox_unavailable",
      `No sandbox is available (${status.backend}): ${status.reason ?? "unknown reason"}.${fix}`,
      { data: { backend: status.backend, reason: status.reason, fix: status.fix } },
    );
    this.status = status;
  }
}

/** The runner was disposed: it starts no new command. */
export class RunnerDisposedError extends DshError<"runner_disposed"> {
  constructor() {
    super("runner_disposed", "the command runner has been disposed");
  }
}
