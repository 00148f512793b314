/**
 * Reading a file a prompt links to (`file://` resource links), with every check `read_file`
 * applies: inside the session root only, no credential store, no special file, no binary,
 * at most `MAX_FILE_BYTES`. This is the one place a mention is read.
 */
import { fileURLToPath } from "node:url";
import { decodeForDisplay, readTextBytes } from "./file-io.ts";
import { resolveForRead } from "./paths.ts";

/**
 * The text of the file `uri` names when it is a readable text file inside `root`; undefined
 * for anything else (another scheme, outside the project, refused, unreadable, not UTF-8), so
 * the caller names the link instead. Never throws.
 */
export async function readMentionedFile(
  root: string,
  uri: string,
  homeDirs: readonly string[],
): Promise<string | undefined> {
  try {
    const url = new URL(uri);
    if (url.protocol !== "file:") return undefined;
    const located = resolveForRead(root, fileURLToPath(url), homeDirs);
    if (located.place !== "inside") return undefined;
    const bytes = await readTextBytes(located.real, located.path, {
      homeDirs,
      within: located.root,
    });
    const { text, valid } = decodeForDisplay(bytes);
    return valid ? text : undefined;
  } catch {
    return undefined;
  }
}
