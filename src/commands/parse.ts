/** Finding a slash command in what the user typed. */
import type { SlashCommand } from "./types.ts";

/** A known command and the text after its name. */
export interface CommandInvocation {
  readonly command: SlashCommand;
  readonly args: string;
}

/**
 * The command `text` invokes: `/name` at its start (after blanks), then blanks or the end.
 * Undefined for anything else, including an unknown `/word`, which is ordinary prompt text.
 */
export function parseSlashCommand(
  text: string,
  commands: readonly SlashCommand[],
): CommandInvocation | undefined {
  const match = /^\s*\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (match === null) return undefined;
  const command = commands.find((c) => c.name === match[1]);
  if (command === undefined) return undefined;
  return { command, args: (match[2] ?? "").trim() };
}
