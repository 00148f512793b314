/**
 * The slash commands a session's library brings: `/<skill-name> [text]` (a turn carrying the
 * skill's SKILL.md), `/<command> [arguments]` (a turn whose prompt is the command file's body,
 * its arguments put in) and `/<server>:<prompt> [arguments]` (a turn whose prompt the MCP
 * server gives for those arguments). Each runs as a turn, like `/init`.
 */
import type { TurnOutcome, UserContent } from "../agent/types.ts";
import type { CustomCommand, LibraryPrompt, LibrarySnapshot, Skill } from "../library/types.ts";
import { promptArguments, promptUsage } from "../mcp/prompts.ts";
import { skillPrompt } from "../skills/skill-prompt.ts";
import { expandCommand, takesArguments } from "../library/custom-command.ts";
import type { CommandResult, CommandSession, SlashCommand } from "./types.ts";

/** What a skill's input is called when its file gives no `argument-hint`. */
const SKILL_HINT = "what to do with the skill (optional)";

/** The commands of `snapshot`: skills, then custom commands, then MCP prompts. */
export function libraryCommands(snapshot: LibrarySnapshot): SlashCommand[] {
  return [
    ...snapshot.skills.map(skillCommand),
    ...snapshot.commands.map(customCommand),
    ...snapshot.prompts.map(promptCommand),
  ];
}

function skillCommand(skill: Skill): SlashCommand {
  return {
    name: skill.name,
    description: skill.description,
    hint: skill.hint ?? SKILL_HINT,
    argument: "TEXT",
    run: (args, session) => promptTurn(session, skillPrompt(skill, args)),
  };
}

function customCommand(command: CustomCommand): SlashCommand {
  const input =
    command.hint !== undefined
      ? { hint: command.hint, argument: command.hint }
      : takesArguments(command.body)
        ? { hint: "arguments", argument: "ARGUMENTS" }
        : {};
  return {
    name: command.name,
    description: command.description,
    ...input,
    run: (args, session) =>
      promptTurn(session, [{ type: "text", text: expandCommand(command.body, args) }]),
  };
}

function promptCommand(entry: LibraryPrompt): SlashCommand {
  const { prompt, server } = entry;
  const usage = promptUsage(prompt);
  const description = prompt.description?.trim() || `MCP prompt ${prompt.name} of ${server}`;
  return {
    name: entry.name,
    description,
    ...(usage === "" ? {} : { hint: usage, argument: usage }),
    async run(args, session) {
      // Bad arguments are refused before anything is asked of the server.
      const values = promptArguments(entry.name, prompt, args);
      const outcome = await session.runTurn(async (signal) => {
        let content: UserContent[];
        try {
          content = await session.handle.library.getPrompt(server, prompt.name, values, signal);
        } catch (error) {
          if (!signal.aborted) throw error;
          // Stopped while the server answered: the turn is logged as typed, and ends cancelled.
          content = [{ type: "text", text: `/${entry.name} ${args}`.trimEnd() }];
        }
        return session.handle.prompt(content, signal);
      });
      return { type: "turn", outcome };
    },
  };
}

async function promptTurn(
  session: CommandSession,
  content: readonly UserContent[],
): Promise<CommandResult> {
  const outcome: TurnOutcome = await session.runTurn((signal) =>
    session.handle.prompt(content, signal),
  );
  return { type: "turn", outcome };
}
