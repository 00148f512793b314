/** Lines typed by the user, consumed one at a time by whoever asks next (chat or an approval). */
import type { Interface } from "node:readline";

/**
 * Resolves once everything already queued has run: the live renderer consumes events through
 * promise callbacks, so a question waits for it, or it would print above the tool call it is about.
 */
export function afterQueuedOutput(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface LineQueue {
  /** The next line, or undefined once input has ended. */
  next(): Promise<string | undefined>;
  /**
   * Called as a question appears: on a terminal, lines typed before it are dropped, so a stray
   * "y" typed during a turn never approves anything. Piped input keeps them.
   */
  dropTypeahead(): void;
  /**
   * Shows `text` as the line the answer is typed on. At a terminal it becomes readline's
   * prompt, so editing the answer redraws it instead of erasing it; piped, it is just written.
   */
  prompt(text: string): void;
  /**
   * Asks for one of `keys` (single lower-case letters). At a terminal one key press answers,
   * Enter alone gives ""; piped, a line is read and returned trimmed and lower-cased (so
   * "yes" arrives whole). Undefined once input has ended.
   */
  choose(prompt: string, keys: readonly string[]): Promise<string | undefined>;
  /** Ends a pending `next()` or `choose()` with "" (Ctrl-C while a question is open). */
  interrupt(): boolean;
}

export interface LineQueueOptions {
  /**
   * A person at a terminal: type-ahead is dropped before a question and prompts go through
   * readline. Piped input keeps every line and prompts are plain writes.
   */
  readonly terminal: boolean;
  /** Where a prompt is written when not at a terminal. */
  readonly write: (text: string) => void;
}

export function createLineQueue(rl: Interface, options: LineQueueOptions): LineQueue {
  const buffered: string[] = [];
  let waiting: PromiseWithResolvers<string | undefined> | undefined;
  let ended = false;

  rl.on("line", (line) => {
    if (waiting) {
      const current = waiting;
      waiting = undefined;
      current.resolve(line);
    } else {
      buffered.push(line);
    }
  });
  rl.on("close", () => {
    ended = true;
    waiting?.resolve(undefined);
    waiting = undefined;
  });

  const next = (): Promise<string | undefined> => {
    const line = buffered.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(undefined);
    waiting = Promise.withResolvers();
    return waiting.promise;
  };

  const prompt = (text: string) => {
    if (!options.terminal) {
      options.write(text);
      return;
    }
    rl.setPrompt(text);
    rl.prompt();
  };
  return {
    next,
    async choose(text) {
      prompt(text);
      return (await next())?.trim().toLowerCase();
    },
    dropTypeahead() {
      if (options.terminal) buffered.length = 0;
    },
    prompt,
    interrupt() {
      if (!waiting) return false;
      const current = waiting;
      waiting = undefined;
      current.resolve("");
      return true;
    },
  };
}
