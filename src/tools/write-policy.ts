/**
 * When a file write needs the user's approval (interface.md, "Permission presets"): under
 * `on-request`, any write in a read-only session and any write outside the session root asks,
 * and so does a write to home's dotfiles when the root holds home; under `never` nothing asks,
 * so such a write is turned down (only custom knobs pair a sandbox mode with `never`; under
 * `danger-full-access` no write needs approval). Protected paths and credential stores never
 * get this far (see `checkWrite`).
 */
import * as path from "node:path";
import type { DiffIntent } from "../render/intent.ts";
import type { WriteTarget } from "./file-safety/paths.ts";
import type { ToolContext, ToolResult } from "./types.ts";
import { isWithin, relativeInside } from "../paths.ts";
import { PathRefusedError } from "./errors.ts";

/**
 * Asks when the policy says so. Returns undefined when the write may go ahead, or the
 * `isError` result to hand back (denied, cancelled). Throws `PathRefusedError` for a write
 * that would silently follow a workspace symlink out of the root when nobody is asked.
 */
export async function authorizeWrite(
  target: WriteTarget,
  intent: DiffIntent,
  ctx: ToolContext,
  homeDirs: readonly string[],
): Promise<ToolResult<never> | undefined> {
  // The sandboxed shell can plant links in the workspace: one leading out is never followed
  // unasked.
  const escapesViaSymlink = target.place === "outside" && isWithin(target.root, target.path);
  if (ctx.knobs.approvalPolicy === "never" && escapesViaSymlink) {
    throw new PathRefusedError(
      `${target.path} resolves through a symlink to ${target.real}, outside ${target.root}; ` +
        "dsh does not follow it silently (name the real path if that is the file you mean)",
    );
  }
  const reason = askReason(target, ctx, homeDirs);
  if (reason === undefined) return undefined;
  // Custom knobs (a sandbox with `never`): what would ask is turned down unasked, as in bash.
  if (ctx.knobs.approvalPolicy === "never") {
    return {
      isError: true,
      output: `writing ${target.real} needs approval (${reason}), which the approval policy never gives; nothing was written`,
    };
  }
  const decision = await ctx.approval.request(
    {
      sessionId: ctx.sessionId,
      toolCallId: ctx.toolCallId,
      kind: "write",
      title: `Write ${target.real}`,
      reason: escapesViaSymlink ? `${reason} (${target.path} is a symlink to it)` : reason,
      intent,
      // Only a write outside the project can become a rule; asks inside it stay one-off.
      ...(target.place === "outside"
        ? { subject: { type: "write" as const, path: target.real }, cwd: ctx.cwd }
        : {}),
    },
    ctx.signal,
  );
  if (ctx.signal.aborted) return { isError: true, output: "cancelled" };
  if (decision === "allow") return undefined;
  return {
    isError: true,
    output: `the user denied writing ${target.real} (${reason}); nothing was written`,
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
  if (target.place === "outside") return `the file is outside the workspace ${target.root}`;
  const home = homeDotfileOf(target, homeDirs);
  if (home !== undefined) {
    return `the file is among the dotfiles of ${home}, which shells and tools load on their own`;
  }
  if (path.basename(target.real).toLowerCase().startsWith(".env")) {
    return "files named .env* usually hold secrets";
  }
  return undefined;
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
