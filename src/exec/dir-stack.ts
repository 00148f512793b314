/**
 * The directories a depth-first walk is inside, each held by descriptor, with a bound on how
 * many stay open: past it the shallowest ones are closed, and each is opened again through
 * `..` of its child when the walk comes back up, and accepted only if it is the same directory
 * (device and inode) as before. So no depth needs more descriptors than the bound, and no path
 * is ever resolved.
 */
import { PARENT } from "./dir-calls.ts";
import type { DirCalls } from "./dir-calls.ts";

/** One directory of the stack; `fd` is -1 while it is closed. */
export interface DirFrame {
  fd: number;
  readonly dev: bigint;
  readonly ino: bigint;
}

/** Descriptors a walk keeps open by default: far below any process's limit. */
export const OPEN_DIRS = 64;

/** The open directories of one walk, deepest last; `dispose` closes what is still open. */
export class DirStack<F extends DirFrame> {
  readonly frames: F[] = [];
  readonly #calls: DirCalls;
  readonly #max: number;
  /** Frames below this index are closed. */
  #closedBelow = 0;

  constructor(calls: DirCalls, max: number = OPEN_DIRS) {
    this.#calls = calls;
    this.#max = Math.max(1, max);
  }

  get top(): F | undefined {
    return this.frames.at(-1);
  }

  /** Adds an open directory on top, closing the shallowest ones past the bound. */
  push(frame: F): void {
    this.frames.push(frame);
    while (this.frames.length - this.#closedBelow > this.#max) {
      const shallowest = this.frames[this.#closedBelow];
      if (shallowest !== undefined) {
        this.#calls.close(shallowest.fd);
        shallowest.fd = -1;
      }
      this.#closedBelow++;
    }
  }

  /**
   * Closes the top directory and makes its parent the top, open. Returns false when the parent
   * had to be opened again and is no longer where it was (the tree changed under the walk):
   * the stack is then emptied, and the walk cannot go on.
   */
  pop(): boolean {
    const top = this.frames.pop();
    if (top === undefined) return true;
    const parent = this.top;
    const ok = parent === undefined || parent.fd >= 0 || this.#reopen(parent, top);
    this.#calls.close(top.fd);
    if (!ok) this.dispose();
    return ok;
  }

  #reopen(parent: F, child: F): boolean {
    const fd = this.#calls.openDir(child.fd, PARENT);
    if (typeof fd !== "number") return false;
    const stat = this.#calls.stat(fd);
    if (typeof stat === "string" || stat.dev !== parent.dev || stat.ino !== parent.ino) {
      this.#calls.close(fd);
      return false;
    }
    parent.fd = fd;
    this.#closedBelow = this.frames.length - 1;
    return true;
  }

  /** Closes every directory still open. */
  dispose(): void {
    for (const frame of this.frames) if (frame.fd >= 0) this.#calls.close(frame.fd);
    this.frames.length = 0;
    this.#closedBelow = 0;
  }
}
