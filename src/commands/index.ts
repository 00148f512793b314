/**
 * The slash commands, in the order they are offered, and the one entry point both surfaces
 * call: the ACP bridge (which also advertises them) and the terminal chat.
 */
import { type CommandInvocation, parseSlashCommand } from "./parse.ts";
import { effortCommand, modelCommand, permissionCommand } from "./settings-commands.ts";
import { statusCommand } from "./status-command.ts";
import { compactCommand, initCommand } from "./turn-commands.ts";
import type { CommandResult, CommandSession, SlashCommand } from "./types.ts";

export type { CommandInvocation, CommandResult, CommandSession, SlashCommand };

/** Every command dsh offers. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  compactCommand,
  initCommand,
  modelCommand,
  effortCommand,
  permissionCommand,
  statusCommand,
];

/** The command `text` invokes, or undefined (then `text` is an ordinary prompt). */
export function findSlashCommand(text: string): CommandInvocation | undefined {
  return parseSlashCommand(text, SLASH_COMMANDS);
}

/** Runs an invocation. Throws InvalidInputError for bad input, ConflictError while a turn runs. */
export function runSlashCommand(
  invocation: CommandInvocation,
  session: CommandSession,
): Promise<CommandResult> {
  return invocation.command.run(invocation.args, session);
}
