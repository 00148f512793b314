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
import {
  type EditBuffer,
  after,
  before,
  deleteBack,
  deleteForward,
  emptyBuffer,
  insert,
  killToLineEnd,
  lineEnd,
  lineStart,
  replaceBeforeCursor,
  setText,
  wordEnd,
  wordStart,
} from "./edit-buffer.ts";
import type { History } from "./history.ts";
import { ESC_TIMEOUT_MS, type Key, createKeyReader } from "./keys.ts";
import type { LineQueue } from "./line-queue.ts";
import type { InputView, LiveInput, Screen } from "./screen.ts";
import type { Style } from "./style.ts";

/** What Tab offers for the word before the cursor. */
export interface Completion {
  /** Where the word starts in the text. */
  readonly start: number;
  /** Whole words that may replace it; a directory ends with `/`. */
  readonly candidates: readonly string[];
}

export interface TerminalInputDeps {
  readonly input: NodeJS.ReadStream;
  /** Bytes for the terminal itself (bracketed paste on and off). */
  readonly write: (text: string) => void;
  readonly screen: Pick<Screen, "input" | "redraw" | "clear" | "activity" | "suspend" | "resume">;
  readonly rows: () => number;
  readonly history: History;
  readonly style: Style;
  /** Esc or Ctrl-C during a turn, or at a question: the chat cancels the running turn. */
  readonly onInterrupt: () => void;
  /** Tab: what may complete the word before the cursor. */
  readonly complete?: (text: string, cursor: number) => Promise<Completion>;
}

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

const CONTINUATION = "· ";
const BRACKETED_PASTE_ON = "\u001b[?2004h";
const BRACKETED_PASTE_OFF = "\u001b[?2004l";
/** Completions listed under the input at most. */
const LISTED = 8;

type Mode =
  /** The idle chat prompt: Enter sends. */
  | { readonly type: "chat"; readonly done: (line: string | undefined) => void }
  /** A turn runs: Enter queues. */
  | { readonly type: "turn" }
  /** A question's answer, typed in a line of its own. */
  | { readonly type: "line"; readonly prompt: string; readonly done: (line: string) => void }
  /** A choice made with one key (an approval). */
  | {
      readonly type: "choice";
      readonly prompt: string;
      readonly keys: readonly string[];
      readonly done: (key: string) => void;
    };

export function createTerminalInput(deps: TerminalInputDeps): TerminalInput {
  const keys = createKeyReader();
  const { style } = deps;
  const draft = emptyBuffer();
  const answer = emptyBuffer();
  const queued: string[] = [];
  let chatPrompt = "› ";
  let mode: Mode = { type: "turn" };
  let pendingPrompt: string | undefined;
  let armedExit = false;
  let closed = false;
  let browsing: { index: number; draft: string } | undefined;
  let listed: readonly string[] = [];
  let escTimer: ReturnType<typeof setTimeout> | undefined;
  /** Ctrl-D came during a turn: the next idle prompt ends input. */
  let leaving = false;

  const buffer = (): EditBuffer =>
    mode.type === "line" || mode.type === "choice" ? answer : draft;
  const promptOf = () =>
    mode.type === "line" || mode.type === "choice" ? mode.prompt : chatPrompt;

  /** The text's lines with their prompts; a text taller than the screen shows its last lines. */
  const textLines = (columns: number): { lines: string[]; cursor: InputView["cursor"] } => {
    const { text, cursor } = buffer();
    const raw = text.split("\n");
    const prefix = (i: number) => (i === 0 ? promptOf() : CONTINUATION);
    const rowsOf = (i: number) =>
      Math.max(1, Math.ceil(Bun.stringWidth(prefix(i) + (raw[i] ?? "")) / columns));
    const budget = Math.max(3, deps.rows() - 4);
    let start = raw.length - 1;
    let used = rowsOf(start);
    while (start > 0 && used + rowsOf(start - 1) + (start > 1 ? 1 : 0) <= budget) {
      start -= 1;
      used += rowsOf(start);
    }
    const lines = raw.slice(start).map((line, k) => prefix(start + k) + line);
    const before = text.slice(0, cursor).split("\n");
    let line = before.length - 1;
    let index = prefix(line).length + (before[line] ?? "").length;
    if (line < start) {
      line = start;
      index = prefix(start).length;
    }
    if (start === 0) return { lines, cursor: { line: line - start, index } };
    const hidden = `${CONTINUATION}… ${start} more line${start === 1 ? "" : "s"} above`;
    return { lines: [hidden, ...lines], cursor: { line: line - start + 1, index } };
  };

  const queuedLines = (columns: number): string[] =>
    queued.map((message) => {
      const first = message.split("\n")[0] ?? "";
      const more = message.includes("\n") ? " …" : "";
      const room = Math.max(10, columns - 14);
      const cut = Bun.stringWidth(first) > room ? `${Bun.sliceAnsi(first, 0, room - 1)}…` : first;
      return style.dim(`  queued: ${cut}${more}`);
    });

  const hint = () => {
    if (mode.type === "chat" && armedExit) return style.dim("  (Ctrl-C again to exit)");
    if (mode.type === "turn" && leaving) return style.dim("  (leaving when the turn ends)");
    return "";
  };

  const view: LiveInput = {
    view(columns) {
      if (closed) return { lines: [], cursor: { line: 0, index: 0 } };
      const top = mode.type === "line" || mode.type === "choice" ? [] : queuedLines(columns);
      const { lines, cursor } = textLines(columns);
      const last = lines.length - 1;
      lines[last] = `${lines[last] ?? ""}${hint()}`;
      const below =
        listed.length === 0
          ? []
          : [
              style.dim(
                `  ${listed.slice(0, LISTED).join("  ")}${listed.length > LISTED ? `  … ${listed.length - LISTED} more` : ""}`,
              ),
            ];
      return {
        lines: [...top, ...lines, ...below],
        cursor: { line: top.length + cursor.line, index: cursor.index },
      };
    },
  };

  const redraw = () => deps.screen.redraw();

  /** Leaves what was typed on screen, above the region, and empties the input. */
  const commitInput = (shown: string) => {
    deps.screen.activity.write(`${shown}\n`);
  };

  const shownText = (columns = 1_000_000) => textLines(columns).lines.join("\n");

  const finishChat = (line: string | undefined) => {
    if (mode.type !== "chat") return;
    const { done } = mode;
    mode = { type: "turn" };
    armedExit = false;
    listed = [];
    browsing = undefined;
    if (line !== undefined) {
      const shown = shownText();
      setText(draft, "");
      commitInput(shown);
    } else redraw();
    done(line);
  };

  const finishAnswer = (value: string, shown: string) => {
    const current = mode;
    if (current.type !== "line" && current.type !== "choice") return;
    mode = { type: "turn" };
    setText(answer, "");
    deps.screen.resume();
    commitInput(shown);
    current.done(value);
  };

  const recall = (step: -1 | 1) => {
    const entries = deps.history.entries();
    if (entries.length === 0) return;
    if (browsing === undefined) {
      if (step === 1) return;
      browsing = { index: entries.length, draft: draft.text };
    }
    const index = browsing.index + step;
    if (index < 0) return;
    if (index >= entries.length) {
      setText(draft, browsing.draft);
      browsing = undefined;
    } else {
      browsing.index = index;
      setText(draft, entries[index] ?? "");
    }
  };

  const completeWord = async () => {
    if (deps.complete === undefined || mode.type === "choice" || mode.type === "line") return;
    const asked = { text: draft.text, cursor: draft.cursor };
    const found = await deps.complete(asked.text, asked.cursor);
    // Typing went on while the disk was read: the offer is stale.
    if (draft.text !== asked.text || draft.cursor !== asked.cursor) return;
    const { candidates, start } = found;
    if (candidates.length === 0) return;
    const word = draft.text.slice(start, draft.cursor);
    if (candidates.length === 1) {
      const only = candidates[0] ?? "";
      replaceBeforeCursor(draft, start, only.endsWith("/") ? only : `${only} `);
      listed = [];
      return redraw();
    }
    const common = commonPrefix(candidates);
    if (common.length > word.length) replaceBeforeCursor(draft, start, common);
    listed = candidates;
    redraw();
  };

  /** Enter at the chat prompt or during a turn: a trailing `\` adds a line instead. */
  const enterInDraft = () => {
    if (draft.text.slice(0, draft.cursor).endsWith("\\") && draft.cursor === draft.text.length) {
      setText(draft, `${draft.text.slice(0, -1)}\n`);
      return redraw();
    }
    if (mode.type === "chat") {
      if (draft.text.trim() !== "") deps.history.add(draft.text);
      return finishChat(draft.text);
    }
    if (draft.text.trim() === "") return;
    deps.history.add(draft.text);
    queued.push(draft.text);
    setText(draft, "");
    browsing = undefined;
    redraw();
  };

  /** A key of the chat prompt or of a turn's input. */
  const editDraft = (key: Key) => {
    if (key.type === "text" || key.type === "paste") {
      armedExit = false;
      leaving = false;
      listed = [];
      insert(draft, key.text);
      return redraw();
    }
    if (key.name !== "interrupt") armedExit = false;
    if (key.name !== "tab") listed = [];
    switch (key.name) {
      case "enter":
        return enterInDraft();
      case "up":
      case "down":
        recall(key.name === "up" ? -1 : 1);
        return redraw();
      case "tab":
        void completeWord();
        return;
      case "escape":
        if (mode.type === "turn") deps.onInterrupt();
        return redraw();
      case "interrupt":
        if (mode.type === "turn") return deps.onInterrupt();
        if (draft.text !== "") {
          setText(draft, "");
          browsing = undefined;
          return redraw();
        }
        if (armedExit) return finishChat(undefined);
        armedExit = true;
        return redraw();
      case "eof":
        if (draft.text !== "") return;
        if (mode.type === "chat") return finishChat(undefined);
        // During a turn: leave once it ends (and what was queued has been sent).
        leaving = true;
        return redraw();
      default:
        return editCommon(key.name, draft);
    }
  };

  /** A key of a question's answer line. */
  const editAnswer = (key: Key, current: Extract<Mode, { type: "line" }>) => {
    if (key.type === "text" || key.type === "paste") {
      insert(answer, key.text);
      return redraw();
    }
    switch (key.name) {
      case "enter":
        return finishAnswer(answer.text, shownText());
      case "escape":
      case "interrupt":
        return deps.onInterrupt();
      case "eof":
        if (answer.text === "") return finishAnswer("", current.prompt);
        return;
      case "up":
      case "down":
      case "tab":
        return;
      default:
        return editCommon(key.name, answer);
    }
  };

  const choose = (key: Key, current: Extract<Mode, { type: "choice" }>) => {
    if (key.type === "paste") return;
    if (key.type === "text") {
      const picked = key.text.slice(0, 1).toLowerCase();
      if (current.keys.includes(picked)) finishAnswer(picked, `${current.prompt}${picked}`);
      return;
    }
    if (key.name === "enter") return finishAnswer("", current.prompt);
    if (key.name === "escape" || key.name === "interrupt") return deps.onInterrupt();
  };

  /** Moving and deleting, the same in every line. */
  const editCommon = (name: Exclude<Key, { type: "text" | "paste" }>["name"], b: EditBuffer) => {
    switch (name) {
      case "newline":
        insert(b, "\n");
        break;
      case "backspace":
        deleteBack(b);
        break;
      case "delete":
        deleteForward(b);
        break;
      case "left":
        b.cursor = before(b.text, b.cursor);
        break;
      case "right":
        b.cursor = after(b.text, b.cursor);
        break;
      case "home":
        b.cursor = lineStart(b);
        break;
      case "end":
        b.cursor = lineEnd(b);
        break;
      case "word-left":
        b.cursor = wordStart(b);
        break;
      case "word-right":
        b.cursor = wordEnd(b);
        break;
      case "kill-line-start":
        replaceBeforeCursor(b, lineStart(b), "");
        break;
      case "kill-line-end":
        killToLineEnd(b);
        break;
      case "kill-word":
        replaceBeforeCursor(b, wordStart(b), "");
        break;
      case "clear-screen":
        return deps.screen.clear();
      default:
        return;
    }
    redraw();
  };

  const handle = (key: Key) => {
    const current = mode;
    if (current.type === "line") editAnswer(key, current);
    else if (current.type === "choice") choose(key, current);
    else editDraft(key);
  };

  const onData = (data: Buffer | string) => {
    if (escTimer !== undefined) clearTimeout(escTimer);
    escTimer = undefined;
    for (const key of keys.push(typeof data === "string" ? data : data.toString("utf8"))) {
      handle(key);
    }
    // A lone ESC: the Esc key, unless the rest of a sequence follows at once.
    if (keys.holding) {
      escTimer = setTimeout(() => {
        escTimer = undefined;
        for (const key of keys.flush()) handle(key);
      }, ESC_TIMEOUT_MS);
    }
  };

  const restore = () => {
    if (closed) return;
    closed = true;
    if (escTimer !== undefined) clearTimeout(escTimer);
    deps.input.off("data", onData);
    try {
      deps.input.setRawMode(false);
    } catch {
      // The terminal may already be gone.
    }
    deps.input.pause();
    deps.screen.input(undefined);
    deps.write(BRACKETED_PASTE_OFF);
  };

  deps.input.setRawMode(true);
  deps.input.on("data", onData);
  deps.input.resume();
  deps.write(BRACKETED_PASTE_ON);
  process.once("exit", restore);
  /** The input is drawn from the first prompt on: what the chat prints first goes above it. */
  let shown = false;
  const show = () => {
    if (shown) return;
    shown = true;
    deps.screen.input(view);
  };

  const ask = <T>(start: (resolve: (value: T) => void) => Mode, ended: T): Promise<T> =>
    new Promise<T>((resolve) => {
      if (closed) return resolve(ended);
      mode = start(resolve);
      show();
      deps.screen.suspend();
      redraw();
    });

  return {
    chatLine(prompt) {
      return new Promise((resolve) => {
        if (closed || (leaving && queued.length === 0)) return resolve(undefined);
        chatPrompt = prompt;
        mode = { type: "chat", done: resolve };
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
      const prompt = pendingPrompt ?? "";
      pendingPrompt = undefined;
      return ask<string | undefined>((done) => ({ type: "line", prompt, done }), undefined);
    },
    choose(prompt, choices) {
      return ask<string | undefined>(
        (done) => ({ type: "choice", prompt, keys: choices, done }),
        undefined,
      );
    },
    prompt(text) {
      pendingPrompt = text;
    },
    dropTypeahead() {
      // What was typed for the chat waits in its own line; a question starts empty.
    },
    interrupt() {
      if (mode.type !== "line" && mode.type !== "choice") return false;
      finishAnswer("", promptOf());
      return true;
    },
    close() {
      if (mode.type === "chat") finishChat(undefined);
      else if (mode.type === "line" || mode.type === "choice") finishAnswer("", promptOf());
      restore();
    },
  };
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? "";
  for (const word of words) {
    while (!word.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}
