/** `write_file`: create or replace a whole file, showing the diff. */
import * as v from "valibot";
import { displayPath } from "./display-path.ts";
import {
  applyChange,
  changeResultIntent,
  announceIntent,
  firstChangedLine,
  lineCount,
} from "./file-change.ts";
import type { FileChangeDetails, WriteToolDeps } from "./file-change.ts";
import { readTextFile } from "../file-safety/file-io.ts";
import { checkWrite, protectedDirsOf } from "../file-safety/paths.ts";
import { snapshotSecrets } from "../file-safety/secret-identity.ts";
import type { Tool, ToolResult } from "./types.ts";

const BOM = "\uFEFF";

export const WriteFileInput = v.object({
  path: v.pipe(
    v.string(),
    v.description("The file to write: absolute, or relative to the session's working directory."),
  ),
  content: v.pipe(v.string(), v.description("The complete new content of the file.")),
});
export type WriteFileInput = v.InferOutput<typeof WriteFileInput>;

/** Creates the `write_file` tool. */
export function createWriteFileTool(
  deps: WriteToolDeps,
): Tool<typeof WriteFileInput, FileChangeDetails> {
  const protectedDirs = protectedDirsOf(deps.protectedDirs);
  return {
    name: "write_file",
    description:
      "Create a file, or replace a file's whole content. Creates missing parent directories. " +
      "Prefer edit_file to change part of an existing file.",
    input: WriteFileInput,
    async execute(input, ctx): Promise<ToolResult<FileChangeDetails>> {
      const secrets = snapshotSecrets(deps.secrets);
      const target = checkWrite(ctx.cwd, input.path, secrets, protectedDirs, ctx.roots);
      const oldText = target.exists
        ? await readTextFile(target.real, target.path, { secrets })
        : null;
      // A file that had a byte order mark keeps it, as editors do on save.
      const keepBom = oldText?.startsWith(BOM) === true && !input.content.startsWith(BOM);
      const newText = keepBom ? BOM + input.content : input.content;
      const change: FileChangeDetails = {
        path: target.real,
        oldText,
        newText,
        line: firstChangedLine(oldText, newText),
      };
      const refusal = await applyChange("Write", target, change, ctx, secrets);
      if (refusal !== undefined) return refusal;
      const shown = displayPath(ctx.cwd, target.real);
      const verb =
        oldText === null ? "Created" : oldText === newText ? "Rewrote (unchanged)" : "Wrote";
      return {
        isError: false,
        output: `${verb} ${shown} (${lineCount(input.content)})`,
        details: change,
      };
    },
    // The old text is unknown before the call runs: the call shows the new content whole,
    // and the result carries the exact diff.
    presentCall: (input, ctx) => announceIntent("Write", input.path, ctx),
    presentResult: (input, result, ctx) => changeResultIntent("Write", input.path, result, ctx),
  };
}
