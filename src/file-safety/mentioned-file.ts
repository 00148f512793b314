/**
 * Files a prompt names, on their way into the model's context. A `file://` resource link, or
 * `@path` in the terminal, is read through `readContextFile`, the one safe way dsh reads a file
 * on its own initiative: inside the session root only, no secret place, no special or kernel
 * file, whole and UTF-8 (an image: whole and within its size limit). Text the editor embedded
 * itself is checked by its uri: a link that disguises a file holding secrets
 * (`notes.md -> .env`) keeps its text out, though naming `.env` itself is the user's choice.
 */
import * as fs from "node:fs";
import { disguisedSecret, hardLinked, readContextBytes, readContextFile } from "./context-read.ts";
import type { SecretPlaces } from "./credential-paths.ts";
import { MAX_FILE_BYTES } from "./file-io.ts";
import { isWithin, realpathOrUndefined } from "../paths.ts";

/** A named file kept out because it leads to secrets. */
export interface SecretRefusal {
  readonly path: string;
  readonly reason: string;
}

/**
 * The text of the file `uri` names when it is a readable text file inside `root`; undefined
 * for anything else (another scheme, outside the project, refused, missing, or the turn was
 * cancelled), so the caller names the link instead. A refusal because the file leads to
 * secrets is also handed to `onSecret`. Never throws.
 */
export async function readMentionedFile(
  root: string,
  uri: string,
  secrets: SecretPlaces,
  signal: AbortSignal,
  onSecret: (refusal: SecretRefusal) => void = () => {},
): Promise<string | undefined> {
  const path = filePath(uri);
  if (path === undefined) return undefined;
  try {
    const read = await readContextFile({
      path,
      within: root,
      maxBytes: MAX_FILE_BYTES,
      secrets,
      origin: "mention",
      signal,
    });
    if (read.type === "refused" && read.secret) onSecret({ path, reason: read.reason });
    return read.type === "text" ? read.text : undefined;
  } catch {
    // Only a cancelled turn rejects; the turn itself reports the cancel.
    return undefined;
  }
}

/** What became of a file the user named by its path (`@src/app.ts` in the terminal). */
export type MentionedPath =
  | { readonly type: "text"; readonly real: string; readonly text: string }
  | { readonly type: "bytes"; readonly real: string; readonly bytes: Uint8Array }
  | { readonly type: "missing" }
  | { readonly type: "refused"; readonly reason: string };

/**
 * Reads a file the user mentioned by its absolute `path`, through the same rules as a linked
 * one: its text, or with `bytes` (an image) its bytes up to `bytes.maxBytes`; a refusal says
 * why. Never throws for what the disk holds; rejects only once `signal` aborts.
 */
export async function readMentionedPath(
  root: string,
  path: string,
  secrets: SecretPlaces,
  signal: AbortSignal,
  bytes?: { readonly maxBytes: number },
): Promise<MentionedPath> {
  const request = {
    path,
    within: root,
    maxBytes: bytes?.maxBytes ?? MAX_FILE_BYTES,
    secrets,
    signal,
    origin: "mention" as const,
  };
  const read =
    bytes === undefined ? await readContextFile(request) : await readContextBytes(request);
  switch (read.type) {
    case "text":
      return { type: "text", real: read.real, text: read.text };
    case "bytes":
      return { type: "bytes", real: read.real, bytes: read.bytes };
    case "missing":
      return { type: "missing" };
    case "refused":
      return { type: "refused", reason: read.reason };
    default: {
      const unhandled: never = read;
      return unhandled;
    }
  }
}

/**
 * Why text the client embedded for `uri` must stay out of the prompt: its `file://` path inside
 * `root` leads, through a link with another name, to a file that holds secrets, or has several
 * hard links. Undefined for anything else (the client read it; dsh does not judge it again).
 * Never throws.
 */
export function embeddedSecret(root: string, uri: string): SecretRefusal | undefined {
  const path = filePath(uri);
  if (path === undefined || !isWithin(root, path)) return undefined;
  const real = realpathOrUndefined(path);
  const within = realpathOrUndefined(root);
  if (real === undefined || within === undefined || !isWithin(within, real)) return undefined;
  const disguise = disguisedSecret(path, real, within, "mention");
  if (disguise !== undefined) return { path, reason: disguise };
  const links = linksOf(real);
  return links > 1 ? { path, reason: hardLinked(links) } : undefined;
}

function filePath(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === "file:" ? Bun.fileURLToPath(url) : undefined;
  } catch {
    return undefined;
  }
}

function linksOf(path: string): number {
  try {
    const stats = fs.statSync(path);
    return stats.isFile() ? stats.nlink : 1;
  } catch {
    return 1;
  }
}
