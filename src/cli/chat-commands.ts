/**
 * The chat's slash commands: `/help` and `/exit` belong to the chat; every other known
 * command runs through the shared commands module, like it does over ACP.
 */
import {
  type CommandSession,
  SLASH_COMMANDS,
  findSlashCommand,
  runSlashCommand,
} from "../commands/index.ts";
import { errorMessage } from "../errors.ts";
import { terminalText } from "../exec/sanitize.ts";
import { type CliIo, printError } from "./io.ts";
import { describeOutcome } from "./outcome.ts";

/** What a typed line was: the chat's end, a command that ran, or a prompt for the model. */
export type ChatCommandResult = "exit" | "handled" | "prompt";

/**
 * Runs `text` if it is a command. A command's turn runs through the chat's `runTurn`, so
 * Ctrl-C cancels it like a prompt. An unknown `/word` is a prompt.
 */
export async function runChatCommand(
  io: CliIo,
  session: Pick<CommandSession, "handle" | "models" | "sandbox" | "allowedHosts" | "runTurn">,
  text: string,
): Promise<ChatCommandResult> {
  if (text === "/exit" || text === "/quit") return "exit";
  if (text === "/help") {
    io.stdout.write(terminalText(helpText()));
    return "handled";
  }
  const invocation = findSlashCommand(text);
  if (invocation === undefined) return "prompt";
  try {
    const result = await runSlashCommand(invocation, session);
    if (result.type === "reply") io.stdout.write(`${terminalText(result.text)}\n`);
    else if (result.outcome.reason !== "end_turn") printError(io, describeOutcome(result.outcome));
  } catch (error) {
    printError(io, errorMessage(error));
  }
  return "handled";
}

function helpText(): string {
  const rows = [
    ...SLASH_COMMANDS.map((c) => [
      `/${c.name}${c.hint === undefined ? "" : ` [${c.hint}]`}`,
      c.description,
    ]),
    ["/help", "this list"],
    ["/exit", "leave (or Ctrl-D)"],
  ];
  const width = Math.max(...rows.map(([name]) => name?.length ?? 0));
  return rows.map(([name, what]) => `${(name ?? "").padEnd(width)}  ${what}\n`).join("");
}
