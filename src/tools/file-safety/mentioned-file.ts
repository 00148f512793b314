/**
 * Reading a file a prompt links to (`file://` resource links) into the model's context. It
 * goes through `readContextFile`, the one safe way dsh reads a file on its own initiative:
 * inside the session root only, no secret place, no special or kernel file, whole and UTF-8.
 */
import { readContextFile } from "./context-read.ts";
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
