/**
 * The skills block of the system prompt: how to use skills, then one line per skill (name,
 * description, the path of its `SKILL.md`), in the order they were found. Only this goes into
 * every request; the model reads a skill's body with `read_file` when it decides to use it.
 * The block is bounded: past the budget descriptions are shortened, then skills left out.
 */
import type { Skill } from "./skill.ts";

/** Characters the block may take, its header included (about 6,000 tokens). */
export const SKILLS_BLOCK_BUDGET = 24_000;
/** A description is never shortened below this many characters; skills are left out instead. */
const MIN_DESCRIPTION = 60;

const HEADER = [
  "Skills: instructions for particular tasks, each in a folder with a SKILL.md. When a task matches a skill's description, read that SKILL.md with read_file before you start and follow it; read the other files it names (their paths are relative to the SKILL.md's folder) only when it says you need them.",
  "A user message that starts with /<skill-name> brings that skill's SKILL.md as an attached resource: follow it for the rest of the message.",
  "Available skills:",
].join("\n");

/** The block and the skills it had no room for. */
export interface SkillsBlock {
  /** Empty when there are no skills. */
  readonly text: string;
  readonly left: readonly Skill[];
}

/** The block for `skills`; the same skills give the same bytes. */
export function skillsBlock(skills: readonly Skill[], budget = SKILLS_BLOCK_BUDGET): SkillsBlock {
  if (skills.length === 0) return { text: "", left: [] };
  const whole = render(skills, Number.POSITIVE_INFINITY);
  if (whole.length <= budget) return { text: whole, left: [] };
  // Every description cut to an equal share of what the names and paths leave.
  const fixed = render(skills, 0).length;
  const share = Math.floor((budget - fixed) / skills.length);
  if (share >= MIN_DESCRIPTION) return { text: render(skills, share), left: [] };
  const kept: Skill[] = [];
  let size = HEADER.length;
  for (const skill of skills) {
    const line = lineOf(skill, MIN_DESCRIPTION);
    if (size + 1 + line.length > budget) break;
    size += 1 + line.length;
    kept.push(skill);
  }
  return { text: render(kept, MIN_DESCRIPTION), left: skills.slice(kept.length) };
}

function render(skills: readonly Skill[], maxDescription: number): string {
  return [HEADER, ...skills.map((skill) => lineOf(skill, maxDescription))].join("\n");
}

function lineOf(skill: Skill, maxDescription: number): string {
  const { description } = skill;
  const shown =
    description.length <= maxDescription
      ? description
      : `${description.slice(0, Math.max(0, maxDescription - 1)).trimEnd()}…`;
  return `- ${skill.name}: ${shown} (${skill.path})`;
}
