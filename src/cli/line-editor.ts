/**
 * The chat's input at a terminal: a raw-mode line editor drawn at the bottom of the screen's
 * live region, there while a turn runs too. Enter sends; during a turn it queues the message
 * (shown as queued, taken by the chat when the turn ends). Alt-Enter, or Enter after a trailing
 * `\`, adds a line; a bracketed paste is inserted whole, so a pasted block is one message;
 * Up/Down walk the history; Tab completes. Ctrl-C clears typed text first, and at an empty
 * idle prompt a second Ctrl-C leaves; during a turn, Esc or Ctrl-C goes to the interrupt
 * handler (the typed text stays), and so does either at a question. Ctrl-D at an empty idle
 * prompt ends input. A question of the turn is answered in a line of its own: what was typed
 * for the chat waits, so a stray "y" never approves anything.
 */
import { emptyBuffer, setText } from "./edit-buffer.ts";
import { finishAnswer, finishChat, handleKey } from "./input-keys.ts";
import { type InputState, type TerminalInputDeps, inputView, promptOf } from "./input-view.ts";
import { ESC_TIMEOUT_MS, type Key, createKeyReader } from "./keys.ts";
import type { LineQueue } from "./line-queue.ts";

export type { Completion, TerminalInputDeps } from "./input-view.ts";

export interface TerminalInput extends LineQueue {
  /** Reads one message at the idle chat prompt: Ctrl-C twice at an empty line, or Ctrl-D, ends input. */
  chatLine(prompt: string): Promise<string | undefined>;
  /** The oldest message queued during a turn, taken off the queue. */
  takeQueued(): string | undefined;
  /** Puts every queued message back into the typed text (a cancelled turn); returns how many. */
  unqueue(): number;
  /** Puts `text` in the prompt to be edited (a line the chat did not send). */
  edit(text: string): void;
  /** Draws the input from now on (it appears by itself at the first prompt or question). */
  show(): void;
  /** Restores the terminal. Idempotent. */
  close(): void;
}

const BRACKETED_PASTE_ON = "\u001b[?2004h";
const BRACKETED_PASTE_OFF = "\u001b[?2004l";

export function createTerminalInput(deps: TerminalInputDeps): TerminalInput {
  const state: InputState = {
    deps,
    draft: emptyBuffer(),
    answer: emptyBuffer(),
    queued: [],
    chatPrompt: "› ",
    mode: { type: "turn" },
    pendingPrompt: undefined,
    armedExit: false,
    closed: false,
    browsing: undefined,
    listed: [],
    leaving: false,
  };
  const { draft, queued } = state;
  const view = inputView(state);
  const redraw = () => deps.screen.redraw();
  const stopKeys = readKeys(deps.input, (key) => handleKey(state, key));

  const restore = () => {
    if (state.closed) return;
    state.closed = true;
    stopKeys();
    deps.screen.input(undefined);
    deps.write(BRACKETED_PASTE_OFF);
  };

  deps.write(BRACKETED_PASTE_ON);
  process.once("exit", restore);
  /** The input is drawn from the first prompt on: what the chat prints first goes above it. */
  let shown = false;
  const show = () => {
    if (shown) return;
    shown = true;
    deps.screen.input(view);
  };

  const ask = <T>(
    start: (resolve: (value: T) => void) => InputState["mode"],
    ended: T,
  ): Promise<T> =>
    new Promise<T>((resolve) => {
      if (state.closed) return resolve(ended);
      state.mode = start(resolve);
      show();
      deps.screen.suspend();
      redraw();
    });

  return {
    chatLine(prompt) {
      return new Promise((resolve) => {
        if (state.closed || (state.leaving && queued.length === 0)) return resolve(undefined);
        state.chatPrompt = prompt;
        state.mode = { type: "chat", done: resolve };
        show();
        redraw();
      });
    },
    takeQueued: () => {
      const next = queued.shift();
      if (next !== undefined) redraw();
      return next;
    },
    unqueue() {
      const count = queued.length;
      if (count === 0) return 0;
      const typed = draft.text;
      setText(draft, [...queued.splice(0), ...(typed === "" ? [] : [typed])].join("\n"));
      redraw();
      return count;
    },
    edit(text) {
      setText(draft, text);
      show();
      redraw();
    },
    show,
    next() {
      const prompt = state.pendingPrompt ?? "";
      state.pendingPrompt = undefined;
      return ask<string | undefined>((done) => ({ type: "line", prompt, done }), undefined);
    },
    choose(prompt, choices) {
      return ask<string | undefined>(
        (done) => ({ type: "choice", prompt, keys: choices, done }),
        undefined,
      );
    },
    prompt(text) {
      state.pendingPrompt = text;
    },
    dropTypeahead() {
      // What was typed for the chat waits in its own line; a question starts empty.
    },
    interrupt() {
      if (state.mode.type !== "line" && state.mode.type !== "choice") return false;
      finishAnswer(state, "", promptOf(state));
      return true;
    },
    close() {
      if (state.mode.type === "chat") finishChat(state, undefined);
      else if (state.mode.type === "line" || state.mode.type === "choice")
        finishAnswer(state, "", promptOf(state));
      restore();
    },
  };
}

/**
 * Puts `input` in raw mode and hands each key to `onKey`; a lone ESC is the Esc key unless the
 * rest of a sequence follows at once. Returns what gives the terminal back.
 */
function readKeys(input: NodeJS.ReadStream, onKey: (key: Key) => void): () => void {
  const keys = createKeyReader();
  let escTimer: ReturnType<typeof setTimeout> | undefined;
  const onData = (data: Buffer | string) => {
    if (escTimer !== undefined) clearTimeout(escTimer);
    escTimer = undefined;
    for (const key of keys.push(typeof data === "string" ? data : data.toString("utf8"))) {
      onKey(key);
    }
    if (keys.holding) {
      escTimer = setTimeout(() => {
        escTimer = undefined;
        for (const key of keys.flush()) onKey(key);
      }, ESC_TIMEOUT_MS);
    }
  };
  input.setRawMode(true);
  input.on("data", onData);
  input.resume();
  return () => {
    if (escTimer !== undefined) clearTimeout(escTimer);
    input.off("data", onData);
    try {
      input.setRawMode(false);
    } catch {
      // The terminal may already be gone.
    }
    input.pause();
  };
}
