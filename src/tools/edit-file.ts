/** `edit_file`: replace an exact string in a file, showing the diff. */
import * as v from "valibot";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { displayPath } from "./display-path.ts";
import { EditMismatchError } from "./errors.ts";
import {
  applyChange,
  changeResultIntent,
  announceIntent,
  firstChangedLine,
} from "./file-change.ts";
import type { FileChangeDetails, WriteToolDeps } from "./file-change.ts";
import { readTextFile } from "../file-safety/file-io.ts";
import { checkWrite, protectedDirsOf } from "../file-safety/paths.ts";
import { snapshotSecrets } from "../file-safety/secret-identity.ts";
import type { Tool, ToolResult } from "./types.ts";

export const EditFileInput = v.object({
  path: v.pipe(
    v.string(),
    v.description("The file to edit: absolute, or relative to the session's working directory."),
  ),
  old_string: v.pipe(
    v.string(),
    v.description(
      "The exact text to replace, including whitespace and indentation. Must occur exactly once unless replace_all is true.",
    ),
  ),
  new_string: v.pipe(
    v.string(),
    v.description("The text to put in its place. Must differ from old_string."),
  ),
  replace_all: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Replace every occurrence of old_string instead of exactly one. Default false.",
      ),
    ),
  ),
});
export type EditFileInput = v.InferOutput<typeof EditFileInput>;

/** Creates the `edit_file` tool. */
export function createEditFileTool(
  deps: WriteToolDeps,
): Tool<typeof EditFileInput, FileChangeDetails> {
  const protectedDirs = protectedDirsOf(deps.protectedDirs);
  return {
    name: "edit_file",
    description:
      "Replace text in an existing file. old_string must match the file exactly (read the file " +
      "first) and occur exactly once, unless replace_all is true. To create a file use write_file.",
    input: EditFileInput,
    async execute(input, ctx): Promise<ToolResult<FileChangeDetails>> {
      if (input.old_string === "") {
        throw new InvalidInputError(
          "old_string is empty; use write_file to create or replace a whole file",
        );
      }
      if (input.old_string === input.new_string) {
        throw new InvalidInputError(
          "old_string and new_string are identical; there is nothing to change",
        );
      }
      const secrets = snapshotSecrets(deps.secrets);
      const target = checkWrite(ctx.cwd, input.path, secrets, protectedDirs, ctx.roots);
      if (!target.exists)
        throw new NotFoundError(`${target.path} does not exist; use write_file to create it`);
      const oldText = await readTextFile(target.real, target.path, { secrets });
      const shown = displayPath(ctx.cwd, target.real);
      const edit = planEdit(oldText, input, shown);
      const line = firstChangedLine(oldText, edit.newText);
      const change: FileChangeDetails = { path: target.real, oldText, newText: edit.newText, line };
      const refusal = await applyChange("Edit", target, change, ctx, secrets);
      if (refusal !== undefined) return refusal;
      const count = edit.count === 1 ? "1 occurrence" : `${edit.count} occurrences`;
      return {
        isError: false,
        output: `Edited ${shown}: replaced ${count} (first at line ${edit.line})`,
        details: change,
      };
    },
    // The call shows the replaced fragment; the result carries the whole file's diff.
    presentCall: (input, ctx) => announceIntent("Edit", input.path, ctx),
    presentResult: (input, result, ctx) => changeResultIntent("Edit", input.path, result, ctx),
  };
}

interface PlannedEdit {
  readonly newText: string;
  readonly count: number;
  readonly line: number;
}

/** Applies the replacement in memory, or throws `EditMismatchError` saying why it cannot. */
function planEdit(text: string, input: EditFileInput, shown: string): PlannedEdit {
  let oldString = input.old_string;
  let newString = input.new_string;
  let starts = occurrences(text, oldString);
  // The model writes "\n"; a CRLF file has "\r\n". Match it the file's way.
  if (starts.length === 0 && text.includes("\r\n") && /(?<!\r)\n/.test(oldString)) {
    oldString = toCrlf(oldString);
    newString = toCrlf(newString);
    starts = occurrences(text, oldString);
  }
  const first = starts[0];
  if (first === undefined)
    throw new EditMismatchError(notFoundMessage(text, input.old_string, shown));
  if (starts.length > 1 && input.replace_all !== true) {
    const lines = starts.slice(0, 10).map((start) => lineAt(text, start));
    throw new EditMismatchError(
      `old_string matches ${starts.length} times in ${shown} (at lines ${lines.join(", ")}${starts.length > 10 ? ", …" : ""}); ` +
        "include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence",
    );
  }
  const newText =
    input.replace_all === true
      ? text.split(oldString).join(newString)
      : text.slice(0, first) + newString + text.slice(first + oldString.length);
  return { newText, count: starts.length, line: lineAt(text, first) };
}

/** Start offsets of the non-overlapping occurrences of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    starts.push(at);
  return starts;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

function notFoundMessage(text: string, oldString: string, shown: string): string {
  const base = `old_string was not found in ${shown}. It must match the file exactly, including whitespace, indentation and line breaks`;
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  if (squash(oldString) !== "" && squash(text).includes(squash(oldString))) {
    return `${base}. A match exists when whitespace is ignored: read the file again and copy the exact text.`;
  }
  return `${base}; read the file again to copy the exact text.`;
}
