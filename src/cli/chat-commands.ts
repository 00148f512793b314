/**
 * The chat's slash commands: `/help`, `/exit`, `/new` and `/clear` belong to the terminal;
 * every other known command runs through the shared commands module, as it does over ACP. An
 * unknown `/word` close to a command's name gets "did you mean"; any other goes to the model.
 */
import type { AgentHandle } from "../agent/types.ts";
import {
  type CommandSession,
  type TERMINAL_COMMAND_NAMES,
  findSessionCommand,
  knownCommandNames,
  parseSlashCommand,
  runSlashCommand,
  sessionCommands,
  suggestSlashCommand,
} from "../commands/index.ts";
import { errorMessage } from "../errors.ts";
import { terminalText } from "../render/terminal-text.ts";
import { presetOf } from "../permission/knobs.ts";
import { layoutHelp } from "./help-text.ts";
import { describeOutcome } from "./outcome.ts";
import type { TextSink } from "./types.ts";

/** What a typed line was. */
export type ChatCommandResult =
  | { readonly type: "exit" | "handled" | "prompt" }
  /** `/new` or `/clear`: a new session (after clearing the screen, for `/clear`). */
  | { readonly type: "new"; readonly clear: boolean }
  /** An unknown `/word` that looks like a typo of `suggestion`. */
  | { readonly type: "unknown"; readonly word: string; readonly suggestion: string };

/** The commands only the terminal has (their names are reserved on both surfaces). */
const TERMINAL_COMMANDS = [
  { name: "new", description: "Start a new session; this one stays saved (dsh --resume ID)" },
  { name: "clear", description: "Clear the screen and start a new session" },
  { name: "help", description: "This list" },
  { name: "exit", description: "Leave (or Ctrl-D)" },
  { name: "quit", description: "Leave" },
] as const satisfies readonly {
  name: (typeof TERMINAL_COMMAND_NAMES)[number];
  description: string;
}[];

/**
 * Every command name the chat knows in `handle`'s session (the library's as last scanned), for
 * completion and for "did you mean".
 */
export function chatCommandNames(handle: AgentHandle): string[] {
  const library = sessionCommands(handle).map((command) => command.name);
  const names = [...knownCommandNames(), ...library, ...TERMINAL_COMMANDS.map((c) => c.name)];
  return [...new Set(names)];
}

export interface ChatCommandContext {
  readonly session: Pick<
    CommandSession,
    "handle" | "models" | "sandbox" | "allowedHosts" | "runTurn" | "rules" | "fork"
  >;
  /** Where replies go (above the prompt). */
  readonly out: TextSink;
  /** One error line. */
  readonly error: (message: string) => void;
  /** Asks a yes/no question; true for yes. */
  readonly confirm: (prompt: string) => Promise<boolean>;
  readonly columns: () => number;
}

/**
 * Runs `text` if it is a command. A command's turn runs through the chat's `runTurn`, so
 * Ctrl-C cancels it like a prompt. Never throws: a command's failure is an error line.
 */
export async function runChatSlashCommand(
  context: ChatCommandContext,
  text: string,
): Promise<ChatCommandResult> {
  const own = parseSlashCommand(text, TERMINAL_COMMANDS);
  switch (own?.command.name) {
    case "exit":
    case "quit":
      return { type: "exit" };
    case "help":
      // Scanned first, as before any command: skills and commands added a moment ago are listed.
      await context.session.handle.library.refresh();
      context.out.write(terminalText(helpText(context.session.handle, context.columns())));
      return { type: "handled" };
    case "new":
      return { type: "new", clear: false };
    case "clear":
      return { type: "new", clear: true };
    default:
      break;
  }
  const invocation = await findSessionCommand(text, context.session.handle);
  if (invocation === undefined) {
    const suggestion = suggestSlashCommand(text, chatCommandNames(context.session.handle));
    if (suggestion === undefined) return { type: "prompt" };
    return { type: "unknown", word: text.trim().split(/\s/, 1)[0] ?? "", suggestion };
  }
  try {
    const { command, args } = invocation;
    if (command.name === "permission" && !(await confirmFullAccess(context, args))) {
      context.out.write("permission unchanged\n");
      return { type: "handled" };
    }
    const result = await runSlashCommand(invocation, {
      ...context.session,
      handle: context.session.handle,
      confirm: async (question) => {
        context.out.write(`${question.title}\n${question.detail}\n`);
        return context.confirm(`  ${question.yes}? [y/N] `);
      },
    });
    if (result.type === "reply") context.out.write(`${terminalText(result.text)}\n`);
    else if (result.outcome.reason !== "end_turn") context.error(describeOutcome(result.outcome));
  } catch (error) {
    context.error(errorMessage(error));
  }
  return { type: "handled" };
}

/** `/permission danger-full-access` says what it means and asks first; true to go on. */
async function confirmFullAccess(context: ChatCommandContext, args: string): Promise<boolean> {
  if (args.toLowerCase() !== "danger-full-access") return true;
  if (presetOf(context.session.handle.settings().knobs) === "danger-full-access") return true;
  context.out.write(
    "danger-full-access: commands run without a sandbox, as you, with your files and the network, and nothing asks before a command runs or a file is written.\n",
  );
  return context.confirm("  Switch to danger-full-access? [y/N] ");
}

function helpText(handle: AgentHandle, columns: number): string {
  // An input that names its own brackets (`[focus]`, `<language> [focus]`) keeps them.
  const usage = (name: string, argument?: string) =>
    argument === undefined
      ? `/${name}`
      : /^[[<]/.test(argument)
        ? `/${name} ${argument}`
        : `/${name} [${argument}]`;
  const rows = [
    ...sessionCommands(handle).map((c) => ({
      usage: usage(c.name, c.argument),
      description: c.description,
    })),
    ...TERMINAL_COMMANDS.filter((c) => c.name !== "quit").map((c) => ({
      usage: usage(c.name),
      description: c.description,
    })),
  ];
  const keys =
    "Esc or Ctrl-C stops a turn; Enter during a turn queues a message; Tab completes commands and paths; @path attaches a file.";
  return `${layoutHelp(rows, columns)}${layoutHelp([{ usage: "", description: keys }], columns)}`;
}
