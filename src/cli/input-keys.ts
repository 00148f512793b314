/**
 * What each key does to the terminal input: at the chat prompt and during a turn it edits the
 * draft (Enter sends or queues, Up/Down walk the history, Tab completes, Ctrl-C clears and then
 * leaves, Ctrl-D ends input); at a question it edits the answer's own line, or picks a choice.
 */
import {
  type EditBuffer,
  after,
  before,
  deleteBack,
  deleteForward,
  insert,
  killToLineEnd,
  lineEnd,
  lineStart,
  replaceBeforeCursor,
  setText,
  wordEnd,
  wordStart,
} from "./edit-buffer.ts";
import { type InputState, type Mode, shownText } from "./input-view.ts";
import type { Key } from "./keys.ts";

const redraw = (state: InputState) => state.deps.screen.redraw();

/** Leaves what was typed on screen, above the region. */
const commitInput = (state: InputState, shown: string) => {
  state.deps.screen.activity.write(`${shown}\n`);
};

/** Ends the idle chat prompt with `line` (undefined: input ends). */
export function finishChat(state: InputState, line: string | undefined) {
  if (state.mode.type !== "chat") return;
  const { done } = state.mode;
  state.mode = { type: "turn" };
  state.armedExit = false;
  state.listed = [];
  state.browsing = undefined;
  if (line !== undefined) {
    const shown = shownText(state);
    setText(state.draft, "");
    commitInput(state, shown);
  } else redraw(state);
  done(line);
}

/** Ends a question with `value`, leaving `shown` on screen. */
export function finishAnswer(state: InputState, value: string, shown: string) {
  const current = state.mode;
  if (current.type !== "line" && current.type !== "choice") return;
  state.mode = { type: "turn" };
  setText(state.answer, "");
  state.deps.screen.resume();
  commitInput(state, shown);
  current.done(value);
}

/** Routes a key to what the input does now. */
export function handleKey(state: InputState, key: Key) {
  const current = state.mode;
  if (current.type === "line") editAnswer(state, key, current);
  else if (current.type === "choice") choose(state, key, current);
  else editDraft(state, key);
}

function recall(state: InputState, step: -1 | 1) {
  const { draft } = state;
  const entries = state.deps.history.entries();
  if (entries.length === 0) return;
  if (state.browsing === undefined) {
    if (step === 1) return;
    state.browsing = { index: entries.length, draft: draft.text };
  }
  const index = state.browsing.index + step;
  if (index < 0) return;
  if (index >= entries.length) {
    setText(draft, state.browsing.draft);
    state.browsing = undefined;
  } else {
    state.browsing.index = index;
    setText(draft, entries[index] ?? "");
  }
}

async function completeWord(state: InputState): Promise<void> {
  const { draft, deps } = state;
  if (deps.complete === undefined || state.mode.type === "choice" || state.mode.type === "line")
    return;
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
    state.listed = [];
    return redraw(state);
  }
  const common = commonPrefix(candidates);
  if (common.length > word.length) replaceBeforeCursor(draft, start, common);
  state.listed = candidates;
  redraw(state);
}

/** Enter at the chat prompt or during a turn: a trailing `\` adds a line instead. */
function enterInDraft(state: InputState) {
  const { draft, deps } = state;
  if (draft.text.slice(0, draft.cursor).endsWith("\\") && draft.cursor === draft.text.length) {
    setText(draft, `${draft.text.slice(0, -1)}\n`);
    return redraw(state);
  }
  if (state.mode.type === "chat") {
    if (draft.text.trim() !== "") deps.history.add(draft.text);
    return finishChat(state, draft.text);
  }
  if (draft.text.trim() === "") return;
  deps.history.add(draft.text);
  state.queued.push(draft.text);
  setText(draft, "");
  state.browsing = undefined;
  redraw(state);
}

/** A key of the chat prompt or of a turn's input. */
function editDraft(state: InputState, key: Key) {
  const { draft, deps } = state;
  if (key.type === "text" || key.type === "paste") {
    state.armedExit = false;
    state.leaving = false;
    state.listed = [];
    insert(draft, key.text);
    return redraw(state);
  }
  if (key.name !== "interrupt") state.armedExit = false;
  if (key.name !== "tab") state.listed = [];
  switch (key.name) {
    case "enter":
      return enterInDraft(state);
    case "up":
    case "down":
      recall(state, key.name === "up" ? -1 : 1);
      return redraw(state);
    case "tab":
      void completeWord(state);
      return;
    case "escape":
      if (state.mode.type === "turn") deps.onInterrupt();
      return redraw(state);
    case "interrupt":
      if (state.mode.type === "turn") return deps.onInterrupt();
      if (draft.text !== "") {
        setText(draft, "");
        state.browsing = undefined;
        return redraw(state);
      }
      if (state.armedExit) return finishChat(state, undefined);
      state.armedExit = true;
      return redraw(state);
    case "eof":
      if (draft.text !== "") return;
      if (state.mode.type === "chat") return finishChat(state, undefined);
      // During a turn: leave once it ends (and what was queued has been sent).
      state.leaving = true;
      return redraw(state);
    default:
      return editCommon(state, key.name, draft);
  }
}

/** A key of a question's answer line. */
function editAnswer(state: InputState, key: Key, current: Extract<Mode, { type: "line" }>) {
  const { answer } = state;
  if (key.type === "text" || key.type === "paste") {
    insert(answer, key.text);
    return redraw(state);
  }
  switch (key.name) {
    case "enter":
      return finishAnswer(state, answer.text, shownText(state));
    case "escape":
    case "interrupt":
      return state.deps.onInterrupt();
    case "eof":
      if (answer.text === "") return finishAnswer(state, "", current.prompt);
      return;
    case "up":
    case "down":
    case "tab":
      return;
    default:
      return editCommon(state, key.name, answer);
  }
}

function choose(state: InputState, key: Key, current: Extract<Mode, { type: "choice" }>) {
  if (key.type === "paste") return;
  if (key.type === "text") {
    const picked = key.text.slice(0, 1).toLowerCase();
    if (current.keys.includes(picked)) finishAnswer(state, picked, `${current.prompt}${picked}`);
    return;
  }
  if (key.name === "enter") return finishAnswer(state, "", current.prompt);
  if (key.name === "escape" || key.name === "interrupt") return state.deps.onInterrupt();
}

/** Moving and deleting, the same in every line. */
function editCommon(
  state: InputState,
  name: Exclude<Key, { type: "text" | "paste" }>["name"],
  b: EditBuffer,
) {
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
      return state.deps.screen.clear();
    default:
      return;
  }
  redraw(state);
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? "";
  for (const word of words) {
    while (!word.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}
