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
import type { SessionEvent } from "../session/events.ts";

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

/** A file the user named with `@path`, as it may go to the model. */
export type Mention =
  | { readonly type: "text"; readonly text: string }
  /** An image, base64, of a type vision models take. */
  | { readonly type: "image"; readonly mimeType: string; readonly data: string }
  | { readonly type: "missing" }
  | { readonly type: "refused"; readonly reason: string };

/** The session a terminal surface talks in, with the parts of its composition it shows. */
export interface TerminalSession extends AsyncDisposable {
  /** The session talked in now; `startNew()` replaces it. */
  readonly handle: AgentHandle;
  /**
   * Closes the session (it stays saved) and starts a new one in its directory with its
   * settings; `handle` is the new one from then on.
   */
  startNew(): Promise<void>;
  /** Replaces the session with a new one holding `history` (`/fork`). */
  startFork(history: readonly SessionEvent[]): Promise<void>;
  /**
   * Reads a file the user mentioned (an absolute path) through the rules a mention from the
   * editor follows: inside the session's directory, no secret place, bounded. Images are
   * read as images. Never throws for what the disk holds.
   */
  readonly readMention: (path: string, signal: AbortSignal) => Promise<Mention>;
  /** Where the API key comes from, in words ("DSH_API_KEY", "stored by dsh login in …"). */
  readonly keyOrigin: string | undefined;
  /** The saved "always allow" rules of the session's project, as `dsh rules` words them. */
  readonly rules: () => readonly string[];
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
