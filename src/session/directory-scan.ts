/**
 * The lines of large logs that add a directory, for the session list: found by their bytes,
 * chunk by chunk, only those lines decoded. A log only grows (a torn last line aside), so the
 * scanner remembers how far it read each one and reads only what was appended since.
 */
import { statSync } from "node:fs";

/** How a line that adds a directory starts: the log writes each event's `type` first. */
export const DIRECTORY_START = '{"type":"directory"';

const DIRECTORY_BYTES = Buffer.from(`\n${DIRECTORY_START}`);
const SCAN_CHUNK = 1024 * 1024;

export interface DirectoryScanner {
  /** The complete lines of the log at `path` that add a directory, in order. */
  lines(path: string): Promise<string[]>;
}

interface Scanned {
  readonly dev: number;
  readonly ino: number;
  /** The offset just past the last LF read. */
  readonly to: number;
  readonly lines: readonly string[];
}

export function createDirectoryScanner(): DirectoryScanner {
  const known = new Map<string, Scanned>();
  return {
    async lines(path) {
      const stat = statSync(path);
      const before = known.get(path);
      // The same file, not cut below what was read: only what follows is new.
      const same =
        before !== undefined &&
        before.dev === stat.dev &&
        before.ino === stat.ino &&
        before.to <= stat.size;
      const from = same ? before.to : 0;
      const found = await scanFrom(path, from, stat.size);
      const lines = [...(same ? before.lines : []), ...found.lines];
      known.set(path, { dev: stat.dev, ino: stat.ino, to: found.to, lines });
      return lines;
    },
  };
}

/** The directory lines between `from` (just past an LF, or 0) and `size`, and where it stopped. */
async function scanFrom(
  path: string,
  from: number,
  size: number,
): Promise<{ lines: string[]; to: number }> {
  const file = Bun.file(path);
  const lines: string[] = [];
  let to = from;
  // The LF before `from`, so that a line starting there is found like any other.
  let carry: Buffer = Buffer.from("\n");
  for (let at = from; at < size; at += SCAN_CHUNK) {
    const bytes = Buffer.from(await file.slice(at, Math.min(size, at + SCAN_CHUNK)).arrayBuffer());
    const chunk = Buffer.concat([carry, bytes]);
    const lastLf = chunk.lastIndexOf(0x0a);
    // What follows the chunk's last LF may be the start of a line that adds a directory.
    const whole = chunk.subarray(0, lastLf + 1);
    carry = chunk.subarray(lastLf);
    to = at + bytes.length - (chunk.length - lastLf - 1);
    for (let hit = whole.indexOf(DIRECTORY_BYTES); hit >= 0; ) {
      const end = whole.indexOf(0x0a, hit + 1);
      if (end < 0) break;
      lines.push(whole.subarray(hit + 1, end).toString("utf8"));
      hit = whole.indexOf(DIRECTORY_BYTES, end);
    }
  }
  return { lines, to };
}
