/**
 * Paths of a workspace as git and the file system have them: bytes, which need not be UTF-8.
 * Checkpoints read git's `-z` output as bytes and name each path by a string that maps back to
 * exactly those bytes: the name itself when it is UTF-8 with nothing to escape, else a quoted
 * form (`"bad\xff.txt"`, `"two\nlines"`) that is also what the user is shown.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
// A name's leading U+FEFF is part of it: a decoder that drops it would name other bytes.
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The records of git's `-z` output (NUL-terminated), empty ones left out. */
export function zRecords(out: Uint8Array): Uint8Array[] {
  const records: Uint8Array[] = [];
  let start = 0;
  for (let i = out.indexOf(0); i >= 0; i = out.indexOf(0, start)) {
    if (i > start) records.push(out.subarray(start, i));
    start = i + 1;
  }
  if (start < out.length) records.push(out.subarray(start));
  return records;
}

/** The string a path's bytes are named by (see the file's comment); one per byte string. */
export function shownPath(bytes: Uint8Array): string {
  const plain = plainText(bytes);
  return plain ?? quoted(bytes);
}

/** The bytes of a path named by `shownPath`. */
export function pathBytes(shown: string): Buffer {
  if (!shown.startsWith('"') || !shown.endsWith('"') || shown.length < 2) {
    return Buffer.from(shown, "utf8");
  }
  const out: number[] = [];
  // By code point: a character outside the BMP is one, not two halves.
  const body = [...shown.slice(1, -1)];
  for (let i = 0; i < body.length; i++) {
    const char = body[i] ?? "";
    if (char !== "\\") {
      out.push(...Buffer.from(char, "utf8"));
      continue;
    }
    const next = body[++i] ?? "";
    if (next === "x") {
      out.push(Number.parseInt(body.slice(i + 1, i + 3).join(""), 16));
      i += 2;
    } else out.push(ESCAPED_BYTES[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(out);
}

/**
 * `root` joined with the relative path named `shown`, as bytes for the file system. Throws for
 * a path with an empty, `.` or `..` part: git never stores one, and it could lead out of `root`.
 */
export function underRoot(root: string, shown: string): Buffer {
  const relative = pathBytes(shown);
  for (let start = 0; start <= relative.length; ) {
    const end = relative.indexOf(SLASH, start);
    const part = relative.subarray(start, end < 0 ? relative.length : end);
    if (part.length === 0 || part.equals(DOT) || part.equals(DOT_DOT)) {
      throw new Error(`${shown} is not a path inside the workspace`);
    }
    if (end < 0) break;
    start = end + 1;
  }
  return Buffer.concat([Buffer.from(root, "utf8"), Buffer.from([SLASH]), relative]);
}

const DOT = Buffer.from(".");
const DOT_DOT = Buffer.from("..");

/**
 * The folders between `root` and the path named `shown`, outermost first, each as bytes for
 * the file system (none for a path at the top).
 */
export function foldersOn(root: string, shown: string): Buffer[] {
  const path = underRoot(root, shown);
  const folders: Buffer[] = [];
  const start = Buffer.byteLength(root, "utf8") + 1;
  for (let i = path.indexOf(SLASH, start); i >= 0; i = path.indexOf(SLASH, i + 1)) {
    folders.push(path.subarray(0, i));
  }
  return folders;
}

const ESCAPES: Readonly<Record<number, string>> = {
  [QUOTE]: '\\"',
  [BACKSLASH]: "\\\\",
  10: "\\n",
  9: "\\t",
  13: "\\r",
};
const ESCAPED_BYTES: Readonly<Record<string, number>> = {
  '"': QUOTE,
  "\\": BACKSLASH,
  n: 0x0a,
  t: 0x09,
  r: 0x0d,
};

/** The text of `bytes` when it is UTF-8 with no control character, backslash or leading quote. */
function plainText(bytes: Uint8Array): string | undefined {
  if (bytes[0] === QUOTE) return undefined;
  for (const byte of bytes)
    if (byte < 0x20 || byte === 0x7f || byte === BACKSLASH) return undefined;
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `"…"`: UTF-8 characters as they are, other bytes and control characters escaped. */
function quoted(bytes: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < bytes.length; ) {
    const byte = bytes[i] ?? 0;
    if (byte < 0x80) {
      out +=
        ESCAPES[byte] ?? (byte < 0x20 || byte === 0x7f ? hex(byte) : String.fromCharCode(byte));
      i++;
      continue;
    }
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    const char = length === 1 ? undefined : decodeOne(bytes.subarray(i, i + length));
    if (char === undefined) {
      out += hex(byte);
      i++;
    } else {
      out += char;
      i += length;
    }
  }
  return `${out}"`;
}

function decodeOne(sequence: Uint8Array): string | undefined {
  try {
    return strict.decode(sequence);
  } catch {
    return undefined;
  }
}

function hex(byte: number): string {
  return `\\x${byte.toString(16).padStart(2, "0")}`;
}
