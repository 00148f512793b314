/**
 * A skill in the Agent Skills format (https://agentskills.io/specification): a folder whose
 * `SKILL.md` opens with front matter naming it (`name`, matching the folder) and saying when to
 * use it (`description`), with optional `license`, `compatibility`, `metadata` and
 * `allowed-tools`. Keys other agents add (`argument-hint`, ...) are allowed and not checked.
 */
import { dirname } from "node:path";
import * as v from "valibot";
import type { MarkdownFile } from "../front-matter/index.ts";

/** The longest skill name. */
export const MAX_SKILL_NAME = 64;
/** The longest description. */
export const MAX_SKILL_DESCRIPTION = 1_024;
const MAX_COMPATIBILITY = 500;

/** A skill as dsh uses it. */
export interface Skill {
  readonly name: string;
  readonly description: string;
  /** The `SKILL.md` file, as found. */
  readonly path: string;
  /** Its folder: the paths the body names are relative to. */
  readonly dir: string;
  /** Where it was found (`project`, `user`, `config`, `directory`). */
  readonly scope: string;
  /** The file without its front matter. */
  readonly body: string;
  /** What to type after `/name`, when the file says (`argument-hint`, as Claude Code reads it). */
  readonly hint?: string;
}

const text = (what: string, max: number) =>
  v.pipe(
    v.string(`${what} must be text`),
    v.check((s) => s.trim() !== "", `${what} is empty`),
    v.maxLength(max, (issue) => `${what} is ${issue.input.length} characters, over ${max}`),
  );

const METADATA = "metadata must map names to text values";

const SkillFrontMatter = v.looseObject({
  name: v.pipe(
    v.string("name must be text"),
    v.maxLength(
      MAX_SKILL_NAME,
      (issue) => `name is ${issue.input.length} characters, over ${MAX_SKILL_NAME}`,
    ),
    v.regex(
      /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
      "name may hold only lowercase letters, digits and single hyphens, neither first nor last",
    ),
  ),
  description: text("description", MAX_SKILL_DESCRIPTION),
  license: v.optional(v.string("license must be text")),
  compatibility: v.optional(text("compatibility", MAX_COMPATIBILITY)),
  metadata: v.optional(v.record(v.string(), v.string(METADATA), METADATA)),
  "allowed-tools": v.optional(
    v.union([v.string(), v.array(v.string())], "allowed-tools must be a list of tool names"),
  ),
  "argument-hint": v.optional(v.string("argument-hint must be text")),
});

/** A skill from its parsed `SKILL.md`, or why the file is not one. */
export function skillOf(
  file: MarkdownFile,
): { readonly ok: true; readonly skill: Skill } | { readonly ok: false; readonly reason: string } {
  if (!file.hasFrontMatter) return { ok: false, reason: "it has no front matter (--- lines)" };
  const missing = ["name", "description"].filter((key) => file.data[key] === undefined);
  if (missing.length > 0) {
    return { ok: false, reason: `the front matter has no ${missing.join(" and no ")}` };
  }
  const parsed = v.safeParse(SkillFrontMatter, file.data);
  if (!parsed.success) return { ok: false, reason: parsed.issues[0].message };
  const { name, description } = parsed.output;
  if (name !== file.name) {
    return { ok: false, reason: `its name ${name} is not its folder's name ${file.name}` };
  }
  const hint = parsed.output["argument-hint"]?.trim();
  return {
    ok: true,
    skill: {
      name,
      description: oneLine(description),
      path: file.path,
      dir: dirname(file.path),
      scope: file.place.scope,
      body: file.body,
      ...(hint === undefined || hint === "" ? {} : { hint }),
    },
  };
}

/** Text on one line: runs of blanks and line breaks become one space. */
export function oneLine(value: string): string {
  return value.trim().replace(/\s+/g, " ");
}
