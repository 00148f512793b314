/**
 * The chat's input at a terminal: a raw-mode line editor. Enter sends; Alt-Enter, or Enter
 * after a trailing `\`, adds a line; a bracketed paste is inserted whole, newlines and all,
 * so a pasted block is one message; Up/Down walk the history. Ctrl-C clears typed text first,
 * and at an empty chat prompt a second Ctrl-C leaves; while no line is being read (a turn
 * runs), or while a question of the turn is open, Ctrl-C goes to the interrupt handler.
 * Ctrl-D at an empty line ends input. Keys typed while no line is read are kept for the next
 * chat prompt and dropped before a question, so a stray "y" never approves anything.
 */
import type { History } from "./history.ts";
import { type Key, createKeyReader } from "./keys.ts";
import type { LineQueue } from "./line-queue.ts";

export interface TerminalInputDeps {
  readonly input: NodeJS.ReadStream;
  readonly output: { write(text: string): void };
  readonly columns: () => number;
  readonly rows: () => number;
  readonly history: History;
  /** Ctrl-C while no line is read, or at a question: the chat cancels the running turn. */
  readonly onInterrupt: () => void;
  /** A line starts or stops being read (the status line hides meanwhile). */
  readonly onReading: (reading: boolean) => void;
}

export interface TerminalInput extends LineQueue {
  /** Reads one line at the chat prompt: Ctrl-C twice at an empty line, or Ctrl-D, ends it. */
  chatLine(prompt: string): Promise<string | undefined>;
  /** Restores the terminal. Idempotent. */
  close(): void;
}

const CONTINUATION = "· ";
const BRACKETED_PASTE_ON = "\u001b[?2004h";
const BRACKETED_PASTE_OFF = "\u001b[?2004l";

interface InputWindow {
  readonly lines: readonly string[];
  /** The first line drawn. */
  readonly start: number;
  readonly columns: number;
}

interface Reading {
  readonly prompt: string;
  readonly chat: boolean;
  readonly done: (line: string | undefined) => void;
}

export function createTerminalInput(deps: TerminalInputDeps): TerminalInput {
  const keys = createKeyReader();
  let text = "";
  let cursor = 0;
  let reading: Reading | undefined;
  let pendingPrompt: string | undefined;
  /** Rows between the first row of the drawn input and the cursor. */
  let cursorRow = 0;
  let armedExit = false;
  let closed = false;
  let browsing: { index: number; draft: string } | undefined;

  const write = (out: string) => deps.output.write(out);

  const prefixOf = (i: number) => (i === 0 ? (reading?.prompt ?? "") : CONTINUATION);

  /**
   * The lines drawn: all of them, or (for input taller than the screen, such as a long paste)
   * the last ones that fit under one line counting the rest, since rows that scrolled off the
   * top can never be redrawn.
   */
  const windowOf = (): InputWindow => {
    const columns = Math.max(1, deps.columns());
    const lines = text.split("\n");
    const rowsOf = (i: number) =>
      Math.max(1, Math.ceil(Bun.stringWidth(prefixOf(i) + (lines[i] ?? "")) / columns));
    const budget = Math.max(3, deps.rows() - 2);
    let start = lines.length - 1;
    let used = rowsOf(start);
    while (start > 0 && used + rowsOf(start - 1) + (start > 1 ? 1 : 0) <= budget) {
      start -= 1;
      used += rowsOf(start);
    }
    return { lines, start, columns };
  };

  /** Where offset `upTo` is drawn; an offset in a hidden line is shown at the first drawn one. */
  const layout = (upTo: number, window: InputWindow) => {
    const { lines, start, columns } = window;
    const before = text.slice(0, upTo).split("\n");
    let index = before.length - 1;
    let head = before[index] ?? "";
    if (index < start) {
      index = start;
      head = "";
    }
    let row = start > 0 ? 1 : 0;
    for (let i = start; i < index; i++)
      row += Math.max(1, Math.ceil(Bun.stringWidth(prefixOf(i) + (lines[i] ?? "")) / columns));
    const width = Bun.stringWidth(prefixOf(index) + head);
    return { row: row + Math.floor(width / columns), col: width % columns };
  };

  const draw = (hint = "") => {
    if (reading === undefined) return;
    const window = windowOf();
    const hidden = window.start;
    const shown = [
      ...(hidden > 0
        ? [`${CONTINUATION}… ${hidden} more line${hidden === 1 ? "" : "s"} above`]
        : []),
      ...window.lines.slice(hidden).map((line, k) => prefixOf(hidden + k) + line),
    ];
    let out = cursorRow > 0 ? `\u001b[${cursorRow}A` : "";
    out += `\r\u001b[J${shown.join("\n")}${hint}`;
    const end = layout(text.length, window);
    const hintWidth = Bun.stringWidth(hint);
    const endCol = (end.col + hintWidth) % window.columns;
    const endRow = end.row + Math.floor((end.col + hintWidth) / window.columns);
    // A line that ends exactly at the edge leaves the cursor waiting to wrap: make it wrap.
    if (endCol === 0 && text.length + hint.length > 0) out += " \r\u001b[K";
    const at = layout(cursor, window);
    const up = endRow - at.row;
    if (up > 0) out += `\u001b[${up}A`;
    out += `\r${at.col > 0 ? `\u001b[${at.col}C` : ""}`;
    cursorRow = at.row;
    write(out);
  };

  const finish = (line: string | undefined) => {
    const current = reading;
    if (current === undefined) return;
    // Leave the input on screen and move below it.
    const end = layout(text.length, windowOf());
    const down = end.row - cursorRow;
    write(`${down > 0 ? `\u001b[${down}B` : ""}\r\n`);
    reading = undefined;
    cursorRow = 0;
    text = "";
    cursor = 0;
    browsing = undefined;
    deps.onReading(false);
    current.done(line);
  };

  const insert = (piece: string) => {
    text = text.slice(0, cursor) + piece + text.slice(cursor);
    cursor += piece.length;
  };

  const recall = (step: -1 | 1) => {
    const entries = deps.history.entries();
    if (entries.length === 0) return;
    if (browsing === undefined) {
      if (step === 1) return;
      browsing = { index: entries.length, draft: text };
    }
    const index = browsing.index + step;
    if (index < 0) return;
    if (index >= entries.length) {
      text = browsing.draft;
      browsing = undefined;
    } else {
      browsing.index = index;
      text = entries[index] ?? "";
    }
    cursor = text.length;
  };

  const wordStart = () => {
    let i = cursor;
    while (i > 0 && /\s/.test(text[i - 1] ?? "")) i--;
    while (i > 0 && !/\s/.test(text[i - 1] ?? "")) i--;
    return i;
  };
  const wordEnd = () => {
    let i = cursor;
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
    while (i < text.length && !/\s/.test(text[i] ?? "")) i++;
    return i;
  };
  const lineStart = () => text.lastIndexOf("\n", cursor - 1) + 1;
  const lineEnd = () => {
    const next = text.indexOf("\n", cursor);
    return next === -1 ? text.length : next;
  };

  /** A key while a line is read. */
  const edit = (key: Key, current: Reading) => {
    if (key.type === "text" || key.type === "paste") {
      armedExit = false;
      insert(key.text);
      return draw();
    }
    if (key.name !== "interrupt") armedExit = false;
    switch (key.name) {
      case "enter":
        if (text.slice(0, cursor).endsWith("\\") && cursor === text.length) {
          text = `${text.slice(0, -1)}\n`;
          cursor = text.length;
          return draw();
        }
        if (current.chat && text.trim() !== "") deps.history.add(text);
        return finish(text);
      case "newline":
        insert("\n");
        return draw();
      case "backspace": {
        if (cursor === 0) return;
        const start = before(text, cursor);
        text = text.slice(0, start) + text.slice(cursor);
        cursor = start;
        return draw();
      }
      case "delete":
        text = text.slice(0, cursor) + text.slice(after(text, cursor));
        return draw();
      case "left":
        cursor = before(text, cursor);
        return draw();
      case "right":
        cursor = after(text, cursor);
        return draw();
      case "home":
        cursor = lineStart();
        return draw();
      case "end":
        cursor = lineEnd();
        return draw();
      case "word-left":
        cursor = wordStart();
        return draw();
      case "word-right":
        cursor = wordEnd();
        return draw();
      case "up":
      case "down":
        if (!current.chat) return;
        recall(key.name === "up" ? -1 : 1);
        return draw();
      case "kill-line-start": {
        const start = lineStart();
        text = text.slice(0, start) + text.slice(cursor);
        cursor = start;
        return draw();
      }
      case "kill-line-end":
        text = text.slice(0, cursor) + text.slice(lineEnd());
        return draw();
      case "kill-word": {
        const start = wordStart();
        text = text.slice(0, start) + text.slice(cursor);
        cursor = start;
        return draw();
      }
      case "clear-screen":
        write("\u001b[H\u001b[2J");
        cursorRow = 0;
        return draw();
      case "eof":
        if (text === "") return finish(undefined);
        return;
      case "interrupt":
        if (text !== "") {
          text = "";
          cursor = 0;
          browsing = undefined;
          armedExit = false;
          return draw();
        }
        if (!current.chat) {
          deps.onInterrupt();
          return;
        }
        if (armedExit) return finish(undefined);
        armedExit = true;
        return draw("  (Ctrl-C again to exit)");
      default: {
        const unhandled: never = key.name;
        return unhandled;
      }
    }
  };

  /** A key while no line is read: Ctrl-C interrupts, the rest is kept as type-ahead. */
  const typeahead = (key: Key) => {
    if (key.type === "key" && key.name === "interrupt") return deps.onInterrupt();
    if (key.type === "text" || key.type === "paste") insert(key.text);
    else if (key.name === "backspace" && cursor > 0) {
      const start = before(text, cursor);
      text = text.slice(0, start) + text.slice(cursor);
      cursor = start;
    }
  };

  const onData = (data: Buffer | string) => {
    for (const key of keys.push(typeof data === "string" ? data : data.toString("utf8"))) {
      if (reading === undefined) typeahead(key);
      else edit(key, reading);
    }
  };

  const restore = () => {
    if (closed) return;
    closed = true;
    deps.input.off("data", onData);
    try {
      deps.input.setRawMode(false);
    } catch {
      // The terminal may already be gone.
    }
    deps.input.pause();
    write(BRACKETED_PASTE_OFF);
  };

  deps.input.setRawMode(true);
  deps.input.on("data", onData);
  deps.input.resume();
  write(BRACKETED_PASTE_ON);
  process.once("exit", restore);

  const read = (prompt: string, chat: boolean) =>
    new Promise<string | undefined>((resolve) => {
      if (closed) return resolve(undefined);
      reading = { prompt, chat, done: resolve };
      cursorRow = 0;
      deps.onReading(true);
      draw();
    });

  return {
    chatLine: (prompt) => read(prompt, true),
    next() {
      return read(pendingPrompt ?? "", false).finally(() => {
        pendingPrompt = undefined;
      });
    },
    prompt(text) {
      pendingPrompt = text;
    },
    dropTypeahead() {
      text = "";
      cursor = 0;
    },
    interrupt() {
      if (reading === undefined || reading.chat) return false;
      text = "";
      cursor = 0;
      finish("");
      return true;
    },
    close() {
      if (reading !== undefined) finish(undefined);
      restore();
    },
  };
}

/** The index one character (code point) before `i`. */
function before(text: string, i: number): number {
  if (i <= 0) return 0;
  const low = text.charCodeAt(i - 1);
  return i >= 2 && low >= 0xdc00 && low <= 0xdfff ? i - 2 : i - 1;
}

/** The index one character (code point) after `i`. */
function after(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const high = text.charCodeAt(i);
  return high >= 0xd800 && high <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}
