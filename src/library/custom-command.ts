/**
 * Custom commands: Markdown files whose body is a prompt (`.dsh/commands/review.md` is
 * `/review`), with optional front matter `description` and `argument-hint`. The body's
 * `$ARGUMENTS` becomes the whole text after the command and `$1`…`$9` its words.
 */
import * as v from "valibot";
import type { MarkdownFile } from "../front-matter/index.ts";
import { oneLine } from "../skills/skill.ts";
import { splitArguments } from "../argument-words.ts";

/** A custom command as dsh uses it. */
export interface CustomCommand {
  /** The file's name without `.md`. */
  readonly name: string;
  readonly description: string;
  readonly hint?: string;
  readonly path: string;
  readonly scope: string;
  /** The prompt: the file without its front matter. */
  readonly body: string;
}

/** A command's name: what `/name` can type and every surface can show. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const CommandFrontMatter = v.looseObject({
  description: v.optional(v.string("description must be text")),
  "argument-hint": v.optional(v.string("argument-hint must be text")),
});

/** The longest description shown; a longer one is cut. */
const MAX_DESCRIPTION = 200;

/** A custom command from its parsed file, or why the file is not one. */
export function customCommandOf(
  file: MarkdownFile,
): { readonly ok: true; readonly command: CustomCommand } | { ok: false; reason: string } {
  if (!NAME.test(file.name)) {
    return {
      ok: false,
      reason:
        "its name (the file name without .md) must be letters, digits, '.', '_' or '-', at most 64, starting with a letter or digit",
    };
  }
  const parsed = v.safeParse(CommandFrontMatter, file.data);
  if (!parsed.success) return { ok: false, reason: parsed.issues[0].message };
  if (file.body.trim() === "") return { ok: false, reason: "its prompt (the body) is empty" };
  const hint = parsed.output["argument-hint"]?.trim();
  const description = oneLine(parsed.output.description ?? "") || firstLine(file.body);
  return {
    ok: true,
    command: {
      name: file.name,
      description: cut(description, MAX_DESCRIPTION),
      ...(hint === undefined || hint === "" ? {} : { hint }),
      path: file.path,
      scope: file.place.scope,
      body: file.body,
    },
  };
}

/** Whether the body takes arguments: it names `$ARGUMENTS` or one of `$1`…`$9`. */
export function takesArguments(body: string): boolean {
  return /\$(?:ARGUMENTS|[1-9])/.test(body);
}

/**
 * The prompt `/name args` sends: `body` with `$ARGUMENTS` replaced by `args` (trimmed) and `$1`…
 * `$9` by its words (see `splitArguments`; one that is not given becomes empty). A body that
 * names none of them gets `args`, when there are any, after a blank line.
 */
export function expandCommand(body: string, args: string): string {
  const text = args.trim();
  if (!takesArguments(body)) return text === "" ? body.trim() : `${body.trim()}\n\n${text}`;
  const words = splitArguments(text);
  return body
    .replace(/\$(?:ARGUMENTS|([1-9]))/g, (_match, digit: string | undefined) =>
      digit === undefined ? text : (words[Number(digit) - 1] ?? ""),
    )
    .trim();
}

function firstLine(body: string): string {
  const line = body.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return oneLine(line.replace(/^\s*#+\s*/, ""));
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
