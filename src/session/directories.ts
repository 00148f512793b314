/** The session's added directories: what they must be, and which ones its log names. */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { InvalidInputError } from "../errors.ts";
import type { SessionEvent } from "./events.ts";

/** Every directory the log added, in order, without repeats. */
export function loggedDirectories(events: readonly SessionEvent[]): string[] {
  const found: string[] = [];
  for (const event of events) {
    if (event.type === "directory" && !found.includes(event.path)) found.push(event.path);
  }
  return found;
}

/**
 * The realpath of an added directory: it must be absolute and an existing directory;
 * InvalidInputError naming the entry otherwise.
 */
export async function checkAddedDirectory(path: string): Promise<string> {
  const shown = JSON.stringify(path.slice(0, 300));
  if (path === "" || path.includes("\0") || !isAbsolute(path)) {
    throw new InvalidInputError(`additional directory ${shown} is not an absolute path`, {
      additionalDirectory: path.slice(0, 300),
    });
  }
  try {
    // Sync calls: node:fs is loaded at start-up already, node:fs/promises is not.
    if (!statSync(path).isDirectory()) {
      throw new InvalidInputError(`additional directory ${shown} is not a directory`, {
        additionalDirectory: path.slice(0, 300),
      });
    }
    return realpathSync(path);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(`additional directory ${shown} does not exist`, {
      additionalDirectory: path.slice(0, 300),
    });
  }
}
