/** Finding a slash command in what the user typed. */

/** A known command and the text after its name. */
export interface CommandInvocation<C extends { readonly name: string } = SlashCommandLike> {
  readonly command: C;
  readonly args: string;
}

interface SlashCommandLike {
  readonly name: string;
}

/**
 * The command `text` invokes among `commands`: `/name` at its start (after blanks), then
 * blanks or the end. Undefined for anything else, including an unknown `/word`, which is
 * ordinary prompt text.
 */
export function parseSlashCommand<C extends { readonly name: string }>(
  text: string,
  commands: readonly C[],
): CommandInvocation<C> | undefined {
  const match = /^\s*\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (match === null) return undefined;
  const command = commands.find((c) => c.name === match[1]);
  if (command === undefined) return undefined;
  return { command, args: (match[2] ?? "").trim() };
}
