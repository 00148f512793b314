/**
 * Contracts of the slash commands both surfaces offer (`/model`, `/status`, ...): what a
 * surface hands a command and what a command gives back. A command works through the
 * session's handle and the services beside it, never through a second path into the loop.
 */
import type { AgentHandle, SessionSettings, TurnOutcome } from "../agent/types.ts";
import type { SandboxStatus } from "../exec/types.ts";
import type { SessionEvent } from "../session/events.ts";
import type { AllowedHosts } from "../network/types.ts";
import type { Thinking } from "../settings/table.ts";

/** A model the commands may name and switch to. */
export interface CommandModel {
  readonly id: string;
  readonly name: string;
  /** How its reasoning is switched; `/effort` needs one that takes an effort. */
  readonly thinking?: Thinking;
}

/** What a surface gives a command: the session and the services around it. */
export interface CommandSession {
  readonly handle: AgentHandle;
  /** The catalog's models, in order. */
  readonly models: () => readonly CommandModel[];
  /** The sandbox backend's probe (for `/status`); "unknown" is shown without it. */
  readonly sandbox?: () => Promise<SandboxStatus>;
  /** The hosts this session's sandboxed commands may reach (for `/status`). */
  readonly allowedHosts?: () => Promise<AllowedHosts>;
  /**
   * Runs a turn the way the surface runs a prompt (over ACP: as the prompt in flight, settled
   * once its updates are written). `start` receives the turn's signal.
   */
  readonly runTurn: (start: (signal: AbortSignal) => Promise<TurnOutcome>) => Promise<TurnOutcome>;
  /** The project's saved "always allow" rules, worded as `dsh rules` lists them (for `/status`). */
  readonly rules?: () => readonly string[];
  /**
   * Asks the user a yes/no question (over ACP a permission request, in the chat a line to
   * answer); false when declined or when nobody can answer.
   */
  readonly confirm?: (question: CommandQuestion) => Promise<boolean>;
  /**
   * Starts a new session holding `history` (`/fork`): in the terminal the chat moves to it
   * (`switched`); in an editor it is saved for the user to open.
   */
  readonly fork?: (
    history: readonly SessionEvent[],
  ) => Promise<{ readonly sessionId: string; readonly switched: boolean }>;
  /** Told after a command changed the settings (over ACP: a `config_option_update`). */
  readonly settingsChanged?: (settings: SessionSettings) => Promise<void>;
}

/** A yes/no question a command asks. */
export interface CommandQuestion {
  readonly title: string;
  readonly detail: string;
  /** The labels of the two answers. */
  readonly yes: string;
  readonly no: string;
}

/** What a command did: an answer to show the user, or a turn it ran. */
export type CommandResult =
  | { readonly type: "reply"; readonly text: string }
  | { readonly type: "turn"; readonly outcome: TurnOutcome };

/** One slash command. */
export interface SlashCommand {
  /** Without the slash. */
  readonly name: string;
  readonly description: string;
  /** What to type after the name, shown as a hint; absent for a command without input. */
  readonly hint?: string;
  /** The input's name in a usage line (`/model [ID]`); absent for a command without input. */
  readonly argument?: string;
  /** Runs with the text after the name (trimmed, may be empty). Throws InvalidInputError for bad input. */
  run(args: string, session: CommandSession): Promise<CommandResult>;
}
