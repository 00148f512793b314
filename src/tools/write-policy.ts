/**
 * When a file write needs the user's approval (interface.md, "Permission presets"): any write
 * in a read-only session, any write outside the session root, a write to home's dotfiles when
 * the root holds home, a `.env*` file, and protected project configuration (`.vscode/`,
 * `.npmrc`, ... at any depth: other programs run what they say); under `danger-full-access`
 * only a write that a workspace symlink leads out of the root. Whether anyone is asked is the approval policy's
 * (`ctx.ask()`): under `never` such a write is turned down. Protected paths and credential
 * stores never get this far (see `checkWrite`).
 */
import * as path from "node:path";
import type { DiffIntent } from "../render/intent.ts";
import type { WriteTarget } from "../file-safety/paths.ts";
import type { ToolContext, ToolResult } from "./types.ts";
import { isWithin, relativeInside } from "../paths.ts";
import { projectConfigMatch } from "../permission/project-config.ts";
import { PathRefusedError } from "../file-safety/errors.ts";

/**
 * Asks when the policy says so. Returns undefined when the write may go ahead, or the
 * `isError` result to hand back (denied, refused unasked, cancelled). Throws
 * `PathRefusedError` for a write that would follow a workspace symlink out of the root when
 * nobody may be asked.
 */
export async function authorizeWrite(
  target: WriteTarget,
  intent: DiffIntent,
  ctx: ToolContext,
  homeDirs: readonly string[],
): Promise<ToolResult<never> | undefined> {
  // The sandboxed shell can plant links in the workspace: one leading out is never followed
  // unasked, whatever the sandbox mode.
  const escapesViaSymlink = target.place === "outside" && isWithin(target.root, target.path);
  const reason =
    askReason(target, ctx, homeDirs) ?? (escapesViaSymlink ? outsideReason(target) : undefined);
  if (reason === undefined) return undefined;
  const outcome = await ctx.ask({
    kind: "write",
    title: `Write ${target.real}`,
    reason: escapesViaSymlink ? `${reason} (${target.path} is a symlink to it)` : reason,
    intent,
    // Only a write outside the project can become a rule; asks inside it stay one-off.
    ...(target.place === "outside"
      ? { subject: { type: "write" as const, path: target.real }, cwd: ctx.cwd }
      : {}),
  });
  if (outcome === "refused") {
    if (escapesViaSymlink) {
      throw new PathRefusedError(
        `${target.path} resolves through a symlink to ${target.real}, outside ${target.root}; ` +
          "dsh does not follow it silently (name the real path if that is the file you mean)",
      );
    }
    return {
      isError: true,
      output: `writing ${target.real} needs approval (${reason}), which the approval policy never gives; nothing was written`,
    };
  }
  if (ctx.signal.aborted) return { isError: true, output: "cancelled" };
  if (outcome === "allow") return undefined;
  return {
    isError: true,
    output: `writing ${target.real} was not approved (${reason}); nothing was written`,
  };
}

function askReason(
  target: WriteTarget,
  ctx: ToolContext,
  homeDirs: readonly string[],
): string | undefined {
  const mode = ctx.knobs.sandboxMode;
  if (mode === "read-only") return "the session is read-only";
  if (mode === "danger-full-access") return undefined;
  if (target.place === "outside") return outsideReason(target);
  const home = homeDotfileOf(target, homeDirs);
  if (home !== undefined) {
    return `the file is among the dotfiles of ${home}, which shells and tools load on their own`;
  }
  if (path.basename(target.real).toLowerCase().startsWith(".env")) {
    return "files named .env* usually hold secrets";
  }
  const config =
    projectConfigMatch(target.root, target.path) ?? projectConfigMatch(target.root, target.real);
  if (config !== undefined) {
    const shown = config.entry.type === "dir" ? `${config.path}/` : config.path;
    return `${shown} is project configuration: ${config.entry.reason}`;
  }
  return undefined;
}

function outsideReason(target: WriteTarget): string {
  return `the file is outside the workspace ${target.root}`;
}

/**
 * The home directory whose dotfiles (hidden files and directories right under it: shell rc
 * files, `.gitconfig`, `.config/…`) the target is among, when the session root is home or an
 * ancestor of it. Both the path asked for and the file it leads to count: a managed
 * `~/.bashrc` is often a symlink into an ordinary directory.
 */
function homeDotfileOf(target: WriteTarget, homeDirs: readonly string[]): string | undefined {
  for (const home of homeDirs) {
    if (!isWithin(target.root, home)) continue;
    for (const file of [target.path, target.real]) {
      const rel = relativeInside(home, file);
      if (rel?.startsWith(".")) return home;
    }
  }
  return undefined;
}
