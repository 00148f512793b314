/**
 * Reading a file a prompt links to (`file://` resource links, or `@path` in the terminal) into
 * the model's context. It goes through `readContextFile`, the one safe way dsh reads a file on
 * its own initiative: inside the session root only, no secret place, no special or kernel file,
 * whole and UTF-8 (an image: whole and within its size limit).
 */
import { readContextBytes, readContextFile } from "./context-read.ts";
import type { SecretPlaces } from "./credential-paths.ts";
import { MAX_FILE_BYTES } from "./file-io.ts";

/**
 * The text of the file `uri` names when it is a readable text file inside `root`; undefined
 * for anything else (another scheme, outside the project, refused, missing, or the turn was
 * cancelled), so the caller names the link instead. Never throws.
 */
export async function readMentionedFile(
  root: string,
  uri: string,
  secrets: SecretPlaces,
  signal: AbortSignal,
): Promise<string | undefined> {
  let path: string;
  try {
    const url = new URL(uri);
    if (url.protocol !== "file:") return undefined;
    path = Bun.fileURLToPath(url);
  } catch {
    return undefined;
  }
  try {
    const read = await readContextFile({
      path,
      within: root,
      maxBytes: MAX_FILE_BYTES,
      secrets,
      signal,
    });
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
