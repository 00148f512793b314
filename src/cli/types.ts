/**
 * What the terminal surfaces need from the process and from the composition. `src/app/` builds
 * these and hands them in; nothing in `src/cli/` picks a real implementation itself.
 */
import type { SandboxStatus } from "../exec/types.ts";
import type { AllowedHosts } from "../network/types.ts";
import type { AgentHandle, SessionSettings } from "../agent/types.ts";
import type { ApprovalAnswerer } from "../approval/types.ts";
import type { InteractionProvider } from "../interaction/types.ts";
import type { ModelInfo } from "../llm/types.ts";

/** Somewhere text goes. */
export interface TextSink {
  write(text: string): void;
}

/** The process's terminal streams and surroundings, as the CLI commands see them. */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The terminal's width (80 when unknown). */
  columns(): number;
  /** The terminal's height (24 when unknown). */
  rows(): number;
}

/** The session a terminal surface talks in, with the parts of its composition it shows. */
export interface TerminalSession extends AsyncDisposable {
  readonly handle: AgentHandle;
  /** The catalog's models, for `/model`. */
  readonly models: () => readonly ModelInfo[];
  /** The sandbox backend's probe, for `/status`. */
  readonly sandbox: () => Promise<SandboxStatus>;
  /** The hosts this session's sandboxed commands may reach, for `/status`. */
  readonly allowedHosts?: () => Promise<AllowedHosts>;
  /** The settings new sessions get (config file, environment and flags applied). */
  readonly defaults: SessionSettings;
  /** Where the chat keeps its input history (in dsh's state directory). */
  readonly historyFile: string;
  /** The model endpoint the session's model is reached at. */
  readonly baseUrl: (model: string) => string;
}

/** Who answers the session's questions: the surface's own answerers, in order. */
export interface SessionSeams {
  readonly answerers: readonly ApprovalAnswerer[];
  readonly questioners: readonly InteractionProvider[];
}

/** Opens (creates or resumes) the session the flags name, wired to the given seams. */
export type OpenSession = (seams: SessionSeams) => Promise<TerminalSession>;
