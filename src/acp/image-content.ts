/**
 * The checks an image block passes before it may reach a model: a format vision APIs take,
 * base64 that decodes, bytes that are what the MIME type says, and a size that fits both the
 * providers' limits and one ACP line (32 MiB).
 */
import { InvalidInputError } from "../errors.ts";

/** Largest image accepted, decoded: its base64 (about 13.4 MiB) fits one ACP message. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** The formats accepted, each with the bytes its files start with. */
const SIGNATURES: Readonly<Record<string, (head: Uint8Array) => boolean>> = {
  "image/png": (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/jpeg": (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  "image/gif": (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]),
  "image/webp": (b) =>
    startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
};

/** The MIME types an image may have. */
const IMAGE_TYPES: readonly string[] = Object.keys(SIGNATURES);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Throws InvalidInputError (naming the block's index) for an unsupported type, data that is
 * not base64, bytes that do not match the type, or an image over MAX_IMAGE_BYTES.
 */
export function checkImage(data: string, mimeType: string, index: number): void {
  const fail = (message: string) => {
    throw new InvalidInputError(message, {
      index,
      type: "image",
      mimeType: mimeType.slice(0, 100),
    });
  };
  const matches = SIGNATURES[mimeType.toLowerCase()];
  if (matches === undefined) {
    fail(
      `image type ${JSON.stringify(mimeType.slice(0, 100))} is not supported (${IMAGE_TYPES.join(", ")})`,
    );
    return;
  }
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    fail("the image data is not base64");
  }
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  const bytes = (data.length / 4) * 3 - padding;
  if (bytes > MAX_IMAGE_BYTES) {
    fail(`the image is ${bytes} bytes; at most ${MAX_IMAGE_BYTES} are accepted`);
  }
  const head = Buffer.from(data.slice(0, 24), "base64");
  if (!matches(head)) fail(`the image data is not ${mimeType}`);
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}
