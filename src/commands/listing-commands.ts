/**
 * `/skills` and `/commands`: what the session's library has loaded, where each came from, and
 * what it left out and why. Both scan the folders again first, so the answer is current.
 */
import type { LibrarySkipped, LibrarySnapshot, SessionLibrary } from "../library/types.ts";
import { promptUsage } from "../mcp/prompts.ts";
import type { SlashCommand } from "./types.ts";

/** The current snapshot, after the first scan and a fresh one. */
async function current(library: SessionLibrary): Promise<LibrarySnapshot> {
  await library.ready();
  await library.refresh();
  return library.snapshot();
}

export const skillsCommand: SlashCommand = {
  name: "skills",
  description: "The skills loaded (name, description, where from) and the files left out",
  async run(_args, session) {
    const { library } = session.handle;
    const snapshot = await current(library);
    const lines = [
      snapshot.skills.length === 0
        ? "no skills (folders with a SKILL.md in .agents/skills/, ~/.agents/skills/ or the config directory's skills/)"
        : `skills (${snapshot.skills.length}); each runs as /<name> [text]:`,
      ...snapshot.skills.map((skill) => {
        const note = library.listsSkill(skill.name)
          ? ""
          : " (not in the model's list of this session: /name runs it; new sessions list it)";
        return `- ${skill.name}: ${skill.description} (${skill.scope}: ${skill.path})${note}`;
      }),
      ...leftOut(snapshot.skipped, "skill"),
    ];
    return { type: "reply", text: lines.join("\n") };
  },
};

export const commandsCommand: SlashCommand = {
  name: "commands",
  description: "The custom commands and MCP prompts loaded, where from, and the files left out",
  async run(_args, session) {
    const snapshot = await current(session.handle.library);
    const usage = (name: string, hint: string | undefined) =>
      hint === undefined ? `/${name}` : `/${name} ${hint}`;
    const lines = [
      snapshot.commands.length === 0
        ? "no custom commands (Markdown files in .dsh/commands/ or the config directory's commands/)"
        : `custom commands (${snapshot.commands.length}):`,
      ...snapshot.commands.map(
        (command) =>
          `- ${usage(command.name, command.hint)}: ${command.description} (${command.scope}: ${command.path})`,
      ),
      snapshot.prompts.length === 0
        ? "no MCP prompts"
        : `MCP prompts (${snapshot.prompts.length}):`,
      ...snapshot.prompts.map((entry) => {
        const hint = promptUsage(entry.prompt);
        const description = entry.prompt.description?.trim() ?? "";
        const about = description === "" ? "" : `: ${description}`;
        return `- ${usage(entry.name, hint === "" ? undefined : hint)}${about} (MCP server ${entry.server})`;
      }),
      ...(snapshot.skills.length === 0
        ? []
        : [
            `skills run as commands too (see /skills): ${snapshot.skills.map((s) => `/${s.name}`).join(", ")}`,
          ]),
      ...leftOut(snapshot.skipped, "command", "prompt"),
    ];
    return { type: "reply", text: lines.join("\n") };
  },
};

/** The lines for what was left out, of the given kinds; none when nothing was. */
function leftOut(
  skipped: readonly LibrarySkipped[],
  ...kinds: readonly LibrarySkipped["kind"][]
): string[] {
  const entries = skipped.filter((entry) => kinds.includes(entry.kind));
  if (entries.length === 0) return [];
  return [`left out (${entries.length}):`, ...entries.map((e) => `- ${e.path}: ${e.reason}`)];
}
