/** `read_file`: a text file's lines, numbered, a window at a time. */
import * as path from "node:path";
import * as v from "valibot";
import { InvalidInputError } from "../errors.ts";
import { displayPath } from "./display-path.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { decodeForDisplay, readTextBytes } from "../file-safety/file-io.ts";
import type { RenderIntent } from "../render/intent.ts";
import { resolveForRead } from "../file-safety/paths.ts";
import { snapshotSecrets } from "../file-safety/secret-identity.ts";
import type { PresentContext, Tool, ToolResult } from "./types.ts";

/** Lines returned when the model gives no `limit`. */
const DEFAULT_READ_LINES = 2000;
/** Characters kept of one line; the rest is replaced by a marker. */
const MAX_LINE_CHARS = 2000;
/** Characters of numbered output per call; a window stops early rather than exceed it. */
const MAX_OUTPUT_CHARS = 200_000;

export const ReadFileInput = v.object({
  path: v.pipe(
    v.string(),
    v.description("The file to read: absolute, or relative to the session's working directory."),
  ),
  offset: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("1-based line number to start at. Default 1."),
    ),
  ),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description(`Maximum number of lines to return. Default ${DEFAULT_READ_LINES}.`),
    ),
  ),
});
export type ReadFileInput = v.InferOutput<typeof ReadFileInput>;

/** Which lines a read returned. */
export interface ReadFileDetails {
  readonly path: string;
  readonly firstLine: number;
  readonly lastLine: number;
  readonly totalLines: number;
}

export interface ReadFileDeps {
  /** What is never read: credential stores, dsh's state directory (see `secretPlacesOf`). */
  readonly secrets: SecretPlaces;
}

/** Creates the `read_file` tool. */
export function createReadFileTool(
  deps: ReadFileDeps,
): Tool<typeof ReadFileInput, ReadFileDetails> {
  return {
    name: "read_file",
    description:
      "Read a text file. Returns its lines numbered from 1 (number, tab, text). Reads up to " +
      `${DEFAULT_READ_LINES} lines from offset; for longer files read further with offset and limit. ` +
      `Lines longer than ${MAX_LINE_CHARS} characters are cut. Binary files and files over 2 MiB are refused.`,
    input: ReadFileInput,
    async execute(input, ctx): Promise<ToolResult<ReadFileDetails>> {
      const secrets = snapshotSecrets(deps.secrets);
      const located = resolveForRead(ctx.cwd, input.path, secrets);
      const bytes = await readTextBytes(located.real, located.path, { secrets });
      const { text, valid } = decodeForDisplay(bytes);
      const result = numberLines(
        located.path,
        text,
        input.offset ?? 1,
        input.limit ?? DEFAULT_READ_LINES,
      );
      if (valid) return result;
      const note = `[${located.path} is not valid UTF-8: bytes that are not are shown as \uFFFD; edit_file and write_file refuse it]`;
      return { ...result, output: `${result.output}\n${note}` };
    },
    presentCall: (input, ctx) => readIntent(input, ctx),
    presentResult: (input, result, ctx) =>
      result.isError ? { ...readIntent(input, ctx), text: result.output } : readIntent(input, ctx),
  };
}

function numberLines(
  file: string,
  text: string,
  offset: number,
  limit: number,
): ToolResult<ReadFileDetails> {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const total = text === "" ? 0 : lines.length;
  if (total === 0) {
    if (offset > 1)
      throw new InvalidInputError(`offset ${offset} is past the end: ${file} is empty`);
    return {
      isError: false,
      output: "(empty file)",
      details: { path: file, firstLine: 0, lastLine: 0, totalLines: 0 },
    };
  }
  if (offset > total) {
    throw new InvalidInputError(
      `offset ${offset} is past the end of ${file}, which has ${total} ${total === 1 ? "line" : "lines"}`,
    );
  }
  const out: string[] = [];
  let size = 0;
  let last = offset - 1;
  const end = Math.min(total, offset + limit - 1);
  for (let number = offset; number <= end; number++) {
    const line = numberedLine(number, lines[number - 1] ?? "");
    if (size + line.length > MAX_OUTPUT_CHARS && out.length > 0) break;
    out.push(line);
    size += line.length + 1;
    last = number;
  }
  if (last < total) {
    out.push(`[lines ${offset}-${last} of ${total}; read more with offset=${last + 1}]`);
  }
  return {
    isError: false,
    output: out.join("\n"),
    details: { path: file, firstLine: offset, lastLine: last, totalLines: total },
  };
}

function numberedLine(number: number, raw: string): string {
  const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  const shown =
    line.length > MAX_LINE_CHARS
      ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length - MAX_LINE_CHARS} more characters]`
      : line;
  return `${String(number).padStart(6)}\t${shown}`;
}

function readIntent(input: ReadFileInput, ctx: PresentContext): RenderIntent {
  const absolute = path.resolve(ctx.cwd, input.path);
  const from = input.offset ?? 1;
  let range = "";
  if (input.limit !== undefined) range = ` (lines ${from}-${from + input.limit - 1})`;
  else if (input.offset !== undefined) range = ` (from line ${from})`;
  return {
    type: "generic",
    kind: "read",
    title: `Read ${displayPath(ctx.cwd, absolute)}${range}`,
    locations: [{ path: absolute, line: from }],
  };
}
