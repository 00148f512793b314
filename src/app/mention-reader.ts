/**
 * Files the user names with `@path` in the terminal, read the way the editor's mentions are:
 * through `readMentionedPath` (inside the session's directory, no secret place, bounded), an
 * image as an image once its bytes pass the checks an image from the editor passes.
 */
import { extname } from "node:path";
import { MAX_IMAGE_BYTES, checkImage } from "../acp/image-content.ts";
import type { Mention } from "../cli/types.ts";
import { errorMessage } from "../errors.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { readMentionedPath } from "../file-safety/mentioned-file.ts";

/** The image types vision models take, by file extension. */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** A reader for one session's root; `path` is absolute. Never throws for what the disk holds. */
export function createMentionReader(root: () => string, secrets: SecretPlaces) {
  return async (path: string, signal: AbortSignal): Promise<Mention> => {
    const mimeType = IMAGE_TYPES[extname(path).toLowerCase()];
    const bytes = mimeType === undefined ? undefined : { maxBytes: MAX_IMAGE_BYTES };
    const read = await readMentionedPath(root(), path, secrets, signal, bytes);
    switch (read.type) {
      case "text":
        return { type: "text", text: read.text };
      case "bytes": {
        const data = Buffer.from(read.bytes).toString("base64");
        try {
          checkImage(data, mimeType ?? "", 0);
        } catch (error) {
          return { type: "refused", reason: errorMessage(error) };
        }
        return { type: "image", mimeType: mimeType ?? "", data };
      }
      case "missing":
      case "refused":
        return read;
      default: {
        const unhandled: never = read;
        return unhandled;
      }
    }
  };
}
