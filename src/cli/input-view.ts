/**
 * The terminal input's state, and how it is drawn in the screen's live region: the typed text
 * with its prompts (its last lines when taller than the screen), the queued messages above it,
 * a hint after it, and the offered completions below.
 */
import type { EditBuffer } from "./edit-buffer.ts";
import type { History } from "./history.ts";
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

export type Mode =
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

/** Everything the input holds between keys. */
export interface InputState {
  readonly deps: TerminalInputDeps;
  /** What is typed for the chat (kept while a question is answered). */
  readonly draft: EditBuffer;
  /** A question's answer. */
  readonly answer: EditBuffer;
  /** Messages sent during a turn, waiting for its end. */
  readonly queued: string[];
  chatPrompt: string;
  mode: Mode;
  /** The prompt of the next question's line. */
  pendingPrompt: string | undefined;
  /** Ctrl-C at an empty idle prompt: a second one leaves. */
  armedExit: boolean;
  closed: boolean;
  /** Walking the history: where, and what was typed before. */
  browsing: { index: number; draft: string } | undefined;
  /** Completions listed under the input. */
  listed: readonly string[];
  /** Ctrl-D came during a turn: the next idle prompt ends input. */
  leaving: boolean;
}

const CONTINUATION = "· ";
/** Completions listed under the input at most. */
const LISTED = 8;

const answering = (state: InputState) => state.mode.type === "line" || state.mode.type === "choice";

/** The buffer keys edit now. */
export const bufferOf = (state: InputState): EditBuffer =>
  answering(state) ? state.answer : state.draft;

export const promptOf = (state: InputState): string =>
  state.mode.type === "line" || state.mode.type === "choice" ? state.mode.prompt : state.chatPrompt;

/** The text's lines with their prompts; a text taller than the screen shows its last lines. */
function textLines(
  state: InputState,
  columns: number,
): { lines: string[]; cursor: InputView["cursor"] } {
  const { text, cursor } = bufferOf(state);
  const raw = text.split("\n");
  const prefix = (i: number) => (i === 0 ? promptOf(state) : CONTINUATION);
  const rowsOf = (i: number) =>
    Math.max(1, Math.ceil(Bun.stringWidth(prefix(i) + (raw[i] ?? "")) / columns));
  const budget = Math.max(3, state.deps.rows() - 4);
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
}

/** The typed text as it is left on screen once sent. */
export const shownText = (state: InputState, columns = 1_000_000): string =>
  textLines(state, columns).lines.join("\n");

function queuedLines(state: InputState, columns: number): string[] {
  return state.queued.map((message) => {
    const first = message.split("\n")[0] ?? "";
    const more = message.includes("\n") ? " …" : "";
    const room = Math.max(10, columns - 14);
    const cut = Bun.stringWidth(first) > room ? `${Bun.sliceAnsi(first, 0, room - 1)}…` : first;
    return state.deps.style.dim(`  queued: ${cut}${more}`);
  });
}

function hint(state: InputState): string {
  const { style } = state.deps;
  if (state.mode.type === "chat" && state.armedExit) return style.dim("  (Ctrl-C again to exit)");
  if (state.mode.type === "turn" && state.leaving)
    return style.dim("  (leaving when the turn ends)");
  return "";
}

function listedLines(state: InputState): string[] {
  const { listed } = state;
  if (listed.length === 0) return [];
  const more = listed.length > LISTED ? `  … ${listed.length - LISTED} more` : "";
  return [state.deps.style.dim(`  ${listed.slice(0, LISTED).join("  ")}${more}`)];
}

/** The input as the screen draws it. */
export function inputView(state: InputState): LiveInput {
  return {
    view(columns) {
      if (state.closed) return { lines: [], cursor: { line: 0, index: 0 } };
      const top = answering(state) ? [] : queuedLines(state, columns);
      const { lines, cursor } = textLines(state, columns);
      const last = lines.length - 1;
      lines[last] = `${lines[last] ?? ""}${hint(state)}`;
      return {
        lines: [...top, ...lines, ...listedLines(state)],
        cursor: { line: top.length + cursor.line, index: cursor.index },
      };
    },
  };
}
