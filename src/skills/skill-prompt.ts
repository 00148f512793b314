/** What `/<skill-name> [text]` sends: the line as typed, then the skill's SKILL.md as a resource. */
import type { UserContent } from "../session/events.ts";
import type { Skill } from "./skill.ts";

/**
 * The prompt of `/<skill.name> args`: the typed line first (it names the turn), then the body
 * of the skill's `SKILL.md`, framed by its file URL so the model knows where its files are.
 */
export function skillPrompt(skill: Skill, args: string): UserContent[] {
  const typed = args === "" ? `/${skill.name}` : `/${skill.name} ${args}`;
  return [
    { type: "text", text: typed },
    {
      type: "resource",
      uri: Bun.pathToFileURL(skill.path).href,
      text: skill.body.trim(),
      mimeType: "text/markdown",
    },
  ];
}
