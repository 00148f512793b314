/** Trees no JavaScript string can name, made for the walk's and the removal's tests. */
import { mkdirSync } from "node:fs";

/** Makes the directory `bytes` (one name, not UTF-8) in `root` and returns its path as bytes. */
export function nonUtf8Dir(root: string, bytes: readonly number[]): Buffer {
  const path = Buffer.concat([Buffer.from(`${root}/`), Buffer.from(bytes)]);
  mkdirSync(path);
  return path;
}

/** A name of 200 bytes: 21 of them nest past PATH_MAX. */
export const LONG_NAME = "d".repeat(200);

/**
 * Makes `levels` nested directories named `LONG_NAME` in `root` and `leaf` (a relative path)
 * at the bottom, by `cd`, one level at a time, as no single path can reach it. Returns the
 * length of the deepest path in bytes.
 */
export function deepChain(root: string, levels: number, leaf: string): number {
  const made = Bun.spawnSync([
    "bash",
    "-c",
    'cd "$1" && for _ in $(seq "$2"); do mkdir "$3" && cd "$3" || exit 1; done && mkdir -p "$4"',
    "_",
    root,
    String(levels),
    LONG_NAME,
    leaf,
  ]);
  if (made.exitCode !== 0) throw new Error(`deep chain: ${made.stderr.toString()}`);
  return root.length + levels * (LONG_NAME.length + 1) + leaf.length + 1;
}
