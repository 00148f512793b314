/** Contracts of the command runner: sandboxed, scrubbed, capped, killable shell commands. */
import type { NetworkRequester } from "../network/types.ts";
import type { SandboxMode } from "../permission/knobs.ts";
import type { SandboxBackend } from "../settings/table.ts";

export interface CommandRequest {
  /** Shell text, run as `[shell, "-c", command]`. */
  readonly command: string;
  /** Absolute working directory; must exist and lie inside the sandbox's view. */
  readonly cwd: string;
  /** Directory whose tree is writable under `workspace-write` (the session root). */
  readonly workspace: string;
  /** More directories writable like `workspace` (the session's added directories). */
  readonly extraWorkspaces?: readonly string[];
  readonly sandbox: SandboxMode;
  /** Clamped to the runner's bounds; the runner's default when absent. */
  readonly timeoutMs?: number;
  /**
   * Who the command's connections are for, and how to ask about a host, when it runs in the
   * sandbox and the runner has a network; without it, hosts the policy does not allow fail.
   */
  readonly network?: NetworkRequester;
  /**
   * The session the command belongs to: where dsh makes network namespaces, a session's
   * sandboxed commands share one (a server one of them started is reached by the next).
   */
  readonly networkScope?: string;
  /** A background command: no timeout; it runs until it exits or is cancelled. */
  readonly background?: boolean;
}

export interface CommandResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** stdout and stderr merged in arrival order, sanitised, head and tail kept under the cap. */
  readonly output: string;
  /** Bytes dropped from the middle of the output by the cap. */
  readonly droppedBytes: number;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** The output passed the runner's hard ceiling and the command was killed. */
  readonly outputLimited?: boolean;
  /** A resource bound of the sandbox ([limits] in the config) the command ran into. */
  readonly limitHit?: LimitHitReport;
  readonly durationMs: number;
}

export interface LimitHitReport {
  readonly limit: "processes" | "memory";
  /** The bound: a number of processes, or MiB. */
  readonly value: number;
  /** Counted by the command's cgroup; otherwise read from the errors the command printed. */
  readonly certain: boolean;
}

export interface RunOptions {
  readonly signal: AbortSignal;
  /** Sanitised output text as it arrives. */
  readonly onOutput?: (text: string) => void;
}

/** What the start-up probe found. `ok: false` means sandboxed modes cannot be enforced. */
export interface SandboxStatus {
  readonly backend: SandboxBackend;
  readonly ok: boolean;
  /** Why it does not work, and how an admin fixes it. */
  readonly reason?: string;
  readonly fix?: string;
  /**
   * Where dsh has no sandbox at all (Windows): commands run unsandboxed in `shell`, each asked
   * about and never covered by a rule; with no `shell`, no command can run.
   */
  readonly unsandboxedOnly?: { readonly shell: string | undefined };
}

export interface CommandRunner extends AsyncDisposable {
  /**
   * Runs one command. Exit status, timeout and cancel are fields of the result; rejects only
   * for requests that can never run (bad cwd) or when sandboxed mode is asked of a runner
   * whose backend does not work (callers check `sandbox()` first).
   */
  run(request: CommandRequest, options: RunOptions): Promise<CommandResult>;
  /** The backend probe, run once per process on first call and cached. */
  sandbox(): Promise<SandboxStatus>;
}
