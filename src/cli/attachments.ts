/**
 * `@path` in a chat message: each names a file to attach, read through the session's mention
 * reader (the rules a mention from the editor follows). A text file goes with the message as
 * an embedded resource, an image as an image: a model without vision gets a note in its place
 * and the session tells the user once, as it does for an image from the editor. A word after
 * `@` that names nothing on disk (`@alice`) is just text.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { UserContent } from "../agent/types.ts";
import { boundEmbeddedText } from "../file-safety/embedded-text.ts";
import type { Mention } from "./types.ts";

export interface AttachDeps {
  readonly cwd: string;
  readonly home: string | undefined;
  readonly read: (path: string, signal: AbortSignal) => Promise<Mention>;
  readonly signal: AbortSignal;
}

/** What the message carries, and a line for each file named. */
export interface Attached {
  readonly content: UserContent[];
  readonly notes: readonly string[];
}

const MENTION = /(^|\s)@(\S+)/g;
/** Punctuation that ends a sentence after a mention rather than belonging to the path. */
const TRAILING = /[.,;:!?)\]'"]+$/;

/** The message `line` with the files it mentions attached. */
export async function attachMentions(line: string, deps: AttachDeps): Promise<Attached> {
  const content: UserContent[] = [{ type: "text", text: line }];
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const match of line.matchAll(MENTION)) {
    const path = existingPath(match[2] ?? "", deps);
    if (path === undefined || seen.has(path)) continue;
    seen.add(path);
    const shown = displayPath(path, deps.cwd);
    const read = await deps.read(path, deps.signal);
    switch (read.type) {
      case "text":
        content.push({
          type: "resource",
          uri: pathToFileURL(path).href,
          text: boundEmbeddedText(pathToFileURL(path).href, read.text),
        });
        notes.push(`attached ${shown} (${lineCount(read.text)})`);
        break;
      case "image":
        content.push({ type: "image", mimeType: read.mimeType, data: read.data });
        notes.push(`attached ${shown} (image)`);
        break;
      case "refused":
        notes.push(`not attached ${shown}: ${read.reason}`);
        break;
      case "missing":
        break;
      default: {
        const unhandled: never = read;
        return unhandled;
      }
    }
  }
  return { content, notes };
}

/** The file a mention names, when it exists: as typed, else without closing punctuation. */
function existingPath(typed: string, deps: AttachDeps): string | undefined {
  for (const candidate of [typed, typed.replace(TRAILING, "")]) {
    if (candidate === "") continue;
    const expanded =
      candidate.startsWith("~/") && deps.home !== undefined
        ? join(deps.home, candidate.slice(2))
        : candidate;
    const path = isAbsolute(expanded) ? expanded : resolve(deps.cwd, expanded);
    if (existsSync(path)) return path;
  }
  return undefined;
}

function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

function lineCount(text: string): string {
  const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return `${lines} line${lines === 1 ? "" : "s"}`;
}
