/** What write_file and edit_file share: the diff intent and the approved, atomic write. */
import { existsSync } from "node:fs";
import * as path from "node:path";
import { displayPath } from "./display-path.ts";
import { readTextFile, writeFileAtomic } from "../file-safety/file-io.ts";
import type { DiffIntent, GenericIntent, RenderIntent } from "../render/intent.ts";
import type { WriteTarget } from "../file-safety/paths.ts";
import type { SecretSnapshot } from "../file-safety/secret-identity.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import type { PresentContext, ToolContext, ToolResult } from "./types.ts";
import { authorizeWrite } from "./write-policy.ts";

/** What the write tools need to know of the user. */
export interface WriteToolDeps {
  /**
   * What is never written (credential stores, dsh's state directory); its home directories'
   * dotfiles ask before a write when the session root holds them.
   */
  readonly secrets: SecretPlaces;
  /** Directories never written, whatever the preset: dsh's own configuration. */
  readonly protectedDirs: readonly string[];
}

/** The change a write made, carried in the result so its presenter shows the exact diff. */
export interface FileChangeDetails {
  /** The absolute path written (symlinks resolved). */
  readonly path: string;
  /** The file's text before, or null when the write created it. */
  readonly oldText: string | null;
  readonly newText: string;
  /** The 1-based first line that differs. */
  readonly line: number;
}

/** The 1-based first line where `newText` differs from `oldText` (1 for a new file). */
export function firstChangedLine(oldText: string | null, newText: string): number {
  if (oldText === null) return 1;
  const limit = Math.min(oldText.length, newText.length);
  let index = 0;
  while (index < limit && oldText[index] === newText[index]) index++;
  let line = 1;
  for (let i = 0; i < index; i++) if (newText[i] === "\n") line++;
  return line;
}

/** The diff intent of a change, with a location at its first changed line. */
function changeIntent(verb: string, change: FileChangeDetails, ctx: PresentContext): DiffIntent {
  return {
    type: "diff",
    title: `${verb} ${displayPath(ctx.cwd, change.path)}`,
    path: change.path,
    oldText: change.oldText,
    newText: change.newText,
    locations: [{ path: change.path, line: change.line }],
  };
}

/**
 * The call's intent before it runs: the file and what will happen to it, but no diff yet.
 * Presenters do not read the disk, so any diff now would be a guess (the model's fragment
 * at line 1, or a rewrite shown as a new file); the exact diff comes with the result, and
 * with the approval request when one is needed.
 */
export function announceIntent(
  verb: string,
  inputPath: string,
  ctx: PresentContext,
): GenericIntent {
  const absolute = path.resolve(ctx.cwd, inputPath);
  return {
    type: "generic",
    kind: "edit",
    title: `${verb} ${displayPath(ctx.cwd, absolute)}`,
    locations: [{ path: absolute }],
  };
}

/** The result's intent: the exact diff once written, otherwise the error text. */
export function changeResultIntent(
  verb: string,
  inputPath: string,
  result: ToolResult<FileChangeDetails>,
  ctx: PresentContext,
): RenderIntent {
  if (result.details !== undefined) return changeIntent(verb, result.details, ctx);
  const title = `${verb} ${displayPath(ctx.cwd, path.resolve(ctx.cwd, inputPath))}`;
  return { type: "generic", kind: "edit", title, text: result.output };
}

/**
 * Asks for approval when the write policy says so, then writes atomically. Returns the
 * `isError` result of a denial or cancel, or undefined once the file is written.
 */
export async function applyChange(
  verb: string,
  target: WriteTarget,
  change: FileChangeDetails,
  ctx: ToolContext,
  secrets: SecretSnapshot,
): Promise<ToolResult<never> | undefined> {
  const intent = changeIntent(verb, change, ctx);
  const refusal = await authorizeWrite(target, intent, ctx, secrets.places.homeDirs);
  if (refusal !== undefined) return refusal;
  // An approval can take minutes: whatever the user saved meanwhile must not be overwritten.
  if ((await currentText(target, secrets)) !== change.oldText) {
    return {
      isError: true,
      output: `${target.real} changed while waiting for approval; nothing was written (read it again)`,
    };
  }
  writeFileAtomic(target, change.newText, ctx.signal);
  return undefined;
}

/** The target's text now, or null when it does not exist. */
async function currentText(target: WriteTarget, secrets: SecretSnapshot): Promise<string | null> {
  if (!existsSync(target.real)) return null;
  return readTextFile(target.real, target.path, { secrets });
}

/** "3 lines" / "1 line". */
export function lineCount(text: string): string {
  const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return `${lines} ${lines === 1 ? "line" : "lines"}`;
}
