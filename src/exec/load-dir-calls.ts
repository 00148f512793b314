/** Picks the directory calls for the platform (see `dir-calls.ts`). */
import type { DirCalls } from "./dir-calls.ts";
import { libcDirCalls } from "./libc-calls.ts";
import { pathDirCalls } from "./path-calls.ts";

/**
 * The calls for this platform: libc's on Linux, by path elsewhere. Rejects on Linux when libc
 * cannot be reached through `bun:ffi` (the message says why): the checks are then impossible,
 * and the caller fails closed. `bun:ffi` is loaded here, at the first sandboxed command.
 */
export async function loadDirCalls(
  platform: NodeJS.Platform = process.platform,
): Promise<DirCalls> {
  if (platform !== "linux") return pathDirCalls();
  return libcDirCalls(await import("bun:ffi"));
}
