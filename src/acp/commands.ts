/**
 * Slash commands over ACP: the `available_commands_update` that advertises them, and a prompt
 * that starts with one run through the shared commands module. A reply is an agent message
 * and ends the prompt `end_turn`; a command that runs a turn settles like any prompt.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentHandle, AgentService } from "../agent/types.ts";
import type { CommandInvocation, CommandSession, SlashCommand } from "../commands/index.ts";
import { SLASH_COMMANDS, findSessionCommand, runSlashCommand } from "../commands/index.ts";
import { ConflictError } from "../errors.ts";
import type { SandboxStatus } from "../exec/types.ts";
import type { AllowedHosts } from "../network/types.ts";
import { type AcpModel, configOptions } from "./config-options.ts";
import type { BridgeSession } from "./bridge-session.ts";
import { type PromptSettlement, settlementOf } from "./stop-reason.ts";

/**
 * The update that advertises `commands` (names without the slash): by default the built-in
 * ones, all a session without skills, custom commands or MCP prompts offers.
 */
export function availableCommandsUpdate(
  commands: readonly SlashCommand[] = SLASH_COMMANDS,
): acp.SessionUpdate {
  return {
    sessionUpdate: "available_commands_update",
    availableCommands: commands.map((command) => ({
      name: command.name,
      description: command.description,
      ...(command.hint === undefined ? {} : { input: { hint: command.hint } }),
    })),
  };
}

/** The command a prompt invokes: its first block is text starting with a known `/name`. */
export async function commandOf(
  prompt: readonly acp.ContentBlock[],
  handle: AgentHandle,
): Promise<CommandInvocation | undefined> {
  const first = prompt[0];
  return findSessionCommand(first?.type === "text" ? first.text : "", handle);
}

export interface AcpCommandDeps {
  readonly models: () => readonly AcpModel[];
  /** Makes `/fork`'s new session. */
  readonly service?: Pick<AgentService, "fork">;
  readonly sandbox?: () => Promise<SandboxStatus>;
  /** The hosts a session's sandboxed commands may reach, for `/status`. */
  readonly allowedHosts?: (sessionId: string, cwd: string) => Promise<AllowedHosts>;
}

/**
 * Runs the command in `session`; throws what the command throws (InvalidInputError, ...), and
 * ConflictError while a prompt runs, like any prompt: its answer must not land inside a turn.
 */
export async function runAcpCommand(
  invocation: CommandInvocation,
  session: BridgeSession,
  deps: AcpCommandDeps,
  signal: AbortSignal,
): Promise<PromptSettlement> {
  if (session.busy) {
    throw new ConflictError(`a prompt is already running in session ${session.id}`, {
      sessionId: session.id,
    });
  }
  const hosts = deps.allowedHosts;
  const service = deps.service;
  const commandSession: CommandSession = {
    handle: session.handle,
    models: deps.models,
    ...(deps.sandbox === undefined ? {} : { sandbox: deps.sandbox }),
    ...(hosts === undefined ? {} : { allowedHosts: () => hosts(session.id, session.handle.cwd) }),
    runTurn: (start) => session.runTurn(start, signal),
    confirm: (question) => session.ask(question, signal),
    ...(service === undefined
      ? {}
      : {
          fork: async (history) => {
            // Saved for the user to open from the thread history: the editor shows one thread.
            await using forked = await service.fork({ cwd: session.handle.cwd, history });
            return { sessionId: forked.sessionId, switched: false };
          },
        }),
    settingsChanged: (settings) =>
      session.send([
        {
          sessionUpdate: "config_option_update",
          configOptions: configOptions(settings, deps.models()),
        },
      ]),
  };
  const result = await runSlashCommand(invocation, commandSession);
  if (result.type === "turn") return settlementOf(result.outcome);
  await session.send([
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: result.text } },
  ]);
  return { type: "stop", stopReason: "end_turn" };
}
