/**
 * The slash commands, in the order they are offered, and the one entry point both surfaces
 * call: the ACP bridge (which also advertises them) and the terminal chat. A session offers
 * the built-in commands and those its library brings (skills, custom commands, MCP prompts).
 */
import type { AgentHandle } from "../agent/types.ts";
import { closestMatch } from "../closest-match.ts";
import { diffCommand, rewindCommand, undoCommand } from "./checkpoint-commands.ts";
import { addDirCommand, forkCommand } from "./session-commands.ts";
import { libraryCommands } from "./library-commands.ts";
import { commandsCommand, skillsCommand } from "./listing-commands.ts";
import { type CommandInvocation as Invocation, parseSlashCommand } from "./parse.ts";
import { effortCommand, modelCommand, permissionCommand } from "./settings-commands.ts";
import { statusCommand } from "./status-command.ts";
import { compactCommand, initCommand } from "./turn-commands.ts";
import type { CommandResult, CommandSession, SlashCommand } from "./types.ts";

export type { CommandResult, CommandSession, SlashCommand };
/** A known command of the shared set and the text after its name. */
export type CommandInvocation = Invocation<SlashCommand>;
export { parseSlashCommand };

/** Every command dsh offers. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  compactCommand,
  initCommand,
  modelCommand,
  effortCommand,
  permissionCommand,
  statusCommand,
  skillsCommand,
  commandsCommand,
  undoCommand,
  rewindCommand,
  diffCommand,
  forkCommand,
  addDirCommand,
];

/** Every command `findSlashCommand` knows. */
const KNOWN: readonly SlashCommand[] = SLASH_COMMANDS;

/**
 * Names only the terminal's chat gives a meaning to. They are reserved on both surfaces, so a
 * skill or custom command never means one thing in the editor and another in the terminal.
 */
export const TERMINAL_COMMAND_NAMES = ["new", "clear", "help", "exit", "quit"] as const;

/** Every name a skill or custom command cannot take: the built-in commands' (it loses). */
export function reservedCommandNames(): string[] {
  return [...KNOWN.map((command) => command.name), ...TERMINAL_COMMAND_NAMES];
}

/** The built-in command `text` invokes, or undefined (then `text` is an ordinary prompt). */
export function findSlashCommand(text: string): CommandInvocation | undefined {
  return parseSlashCommand(text, KNOWN);
}

/** The name of every command `findSlashCommand` knows, without the slash. */
export function knownCommandNames(): string[] {
  return KNOWN.map((command) => command.name);
}

/** The commands `handle`'s session offers now: the built-in ones, then its library's. */
export function sessionCommands(handle: AgentHandle): SlashCommand[] {
  return [...SLASH_COMMANDS, ...libraryCommands(handle.library.snapshot())];
}

/**
 * The command `text` invokes in `handle`'s session, or undefined (an ordinary prompt). Text
 * that starts with `/` is looked up after the session's folders are scanned again, so a skill or
 * command file added a moment ago runs; any other text starts that scan in the background.
 */
export async function findSessionCommand(
  text: string,
  handle: AgentHandle,
): Promise<CommandInvocation | undefined> {
  if (!/^\s*\//.test(text)) {
    void handle.library.refresh();
    return undefined;
  }
  await handle.library.refresh();
  return parseSlashCommand(text, [...KNOWN, ...libraryCommands(handle.library.snapshot())]);
}

/**
 * The command a mistyped `/word` at the start of `text` most likely meant, among `names`: one
 * or two edits away (see `closestMatch`), or the only name it begins (three letters or more).
 * Only a word of letters, digits and `-` counts, so a path (`/usr/bin`, `/etc/hosts`) or a
 * sentence that starts with one never gets a suggestion; undefined when nothing is close.
 */
export function suggestSlashCommand(text: string, names: readonly string[]): string | undefined {
  const word = /^\s*\/([A-Za-z][A-Za-z0-9-]*)(?:\s|$)/.exec(text)?.[1];
  if (word === undefined || names.includes(word)) return undefined;
  const close = closestMatch(word, names);
  if (close !== undefined) return close;
  const begun = names.filter((name) => word.length >= 3 && name.startsWith(word.toLowerCase()));
  return begun.length === 1 ? begun[0] : undefined;
}

/** Runs an invocation. Throws InvalidInputError for bad input, ConflictError while a turn runs. */
export function runSlashCommand(
  invocation: CommandInvocation,
  session: CommandSession,
): Promise<CommandResult> {
  return invocation.command.run(invocation.args, session);
}
