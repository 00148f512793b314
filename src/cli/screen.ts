/**
 * The bottom of the terminal as the chat and `dsh exec` share it: output scrolls above a live
 * region that is erased and drawn again around every write. The region holds, top to bottom,
 * the unfinished last line of output (so a line shows as it streams), a preview (the Markdown
 * block the answer is in, drawn again as it grows), the status line ("⠹ running npm test · 12s")
 * and the input (the chat's prompt, what is queued, completions), with the cursor in the input.
 * There is no region when the activity stream is not a terminal that can move its cursor: then
 * every write goes straight through and previews are not shown.
 */
import type { Style } from "./style.ts";
import { endOf, rowStart, rowsOf } from "./terminal-width.ts";
import type { TextSink } from "./types.ts";

/** What an input shows in the live region. */
export interface InputView {
  /** Its lines, top to bottom (the terminal wraps a long one). */
  readonly lines: readonly string[];
  /** The cursor: a line of `lines` and the index in that line's text it stands before. */
  readonly cursor: { readonly line: number; readonly index: number };
}

/** An input the region draws at its bottom (the chat's line editor). */
export interface LiveInput {
  view(columns: number): InputView;
}

export interface Screen {
  readonly answer: TextSink;
  readonly activity: TextSink;
  /** Whether there is a live region (previews and the status line are shown). */
  readonly live: boolean;
  /** Shows `text` under the output until the next call replaces it; "" removes it. */
  preview(text: string): void;
  /** The rows a preview may take now; a taller one would scroll out of reach of a redraw. */
  previewRoom(): number;
  /** Shows a status label with its elapsed time, replacing any other; undefined hides it. */
  status(label: string | undefined): void;
  /** Hides the status line while the user answers a question (an approval, a choice). */
  suspend(): void;
  resume(): void;
  /** Draws `input` at the bottom of the region from now on; undefined removes it. */
  input(input: LiveInput | undefined): void;
  /** Draws the region again (the input changed). */
  redraw(): void;
  /** Clears the whole screen (Ctrl-L) and draws the region at its top. */
  clear(): void;
  /** Stops the clock, clears the region and writes out any unfinished line. */
  close(): void;
}

export interface ScreenOptions {
  readonly answer: TextSink;
  readonly activity: TextSink;
  /** Whether writes to `answer` land on the terminal the region is on. */
  readonly answerOnTerminal: boolean;
  /** The region's terminal (the activity stream's); none: no live region. */
  readonly status?: {
    readonly style: Style;
    readonly columns: () => number;
    readonly rows: () => number;
  };
  readonly now: () => number;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK_MS = 100;
/** The terminal draws the frame at once (DEC mode 2026; ignored where unknown): no flicker. */
const SYNC_START = "\u001b[?2026h";
const SYNC_END = "\u001b[?2026l";

type Stream = "answer" | "activity";

export function createScreen(options: ScreenOptions): Screen {
  const region = options.status;
  let suspended = false;
  let closed = false;
  /** The last line of output while it has no newline yet: drawn in the region. */
  let tail: { readonly stream: Stream; readonly text: string } | undefined;
  let previewText = "";
  let input: LiveInput | undefined;

  const columns = () => Math.max(1, region?.columns() ?? 80);
  const sameSink = options.answer === options.activity;

  const clock = createStatusClock(options.now, () => {
    if (!suspended) draw();
  });
  const statusText = (width: number): string | undefined =>
    region === undefined || suspended ? undefined : clock.line(region.style, width);

  /** The region's rows, and where the cursor goes: at the input's, else after the last row. */
  const layout = (width: number) => {
    const lines: string[] = [];
    if (tail !== undefined) lines.push(tail.text);
    if (previewText !== "") lines.push(...previewText.replace(/\n$/, "").split("\n"));
    const shown = statusText(width);
    if (shown !== undefined) lines.push(shown);
    let cursor: { line: number; index: number } | undefined;
    if (input !== undefined) {
      const view = input.view(width);
      cursor = { line: lines.length + view.cursor.line, index: view.cursor.index };
      lines.push(...view.lines);
    }
    return { lines, cursor };
  };

  const painter = createPainter({
    terminal: region,
    columns,
    layout,
    closed: () => closed,
    write: (text) => options.activity.write(text),
  });
  const { erase, compose, draw } = painter;

  /** The most rows the unfinished line may take before whole rows of it are written out. */
  const tailRoom = () => Math.max(3, Math.floor((region?.rows() ?? 24) / 2));

  const write = (stream: Stream, text: string) => {
    if (text === "") return;
    const sink = options[stream];
    if (region === undefined || closed || (stream === "answer" && !options.answerOnTerminal)) {
      sink.write(text);
      return;
    }
    const width = columns();
    let head = erase();
    let full = text;
    if (tail !== undefined) {
      if (tail.stream === stream) full = tail.text + text;
      else {
        // Another stream starts mid-line: the unfinished line ends here.
        const ended = `${tail.text}\n`;
        if (sameSink || tail.stream === "activity") head += ended;
        else {
          if (head !== "") options.activity.write(head);
          head = "";
          options[tail.stream].write(ended);
        }
      }
      tail = undefined;
    }
    const { done, rest } = splitTail(full, width, tailRoom());
    if (rest !== "") tail = { stream, text: rest };
    if (sameSink || stream === "activity") {
      options.activity.write(`${SYNC_START}${head}${done}${compose()}${SYNC_END}`);
      return;
    }
    if (head !== "") options.activity.write(head);
    if (done !== "") sink.write(done);
    const drawn = compose();
    if (drawn !== "") options.activity.write(drawn);
  };

  return {
    answer: { write: (text) => write("answer", text) },
    activity: { write: (text) => write("activity", text) },
    live: region !== undefined,
    preview(text) {
      if (region === undefined || text === previewText) return;
      previewText = text;
      draw();
    },
    previewRoom() {
      if (region === undefined) return Number.POSITIVE_INFINITY;
      const width = columns();
      const inputRows = (input?.view(width).lines ?? []).reduce(
        (sum, line) => sum + rowsOf(line, width),
        0,
      );
      const tailRows = tail === undefined ? 0 : rowsOf(tail.text, width);
      const statusRows = clock.label === undefined ? 0 : 1;
      return Math.max(3, region.rows() - inputRows - tailRows - statusRows - 2);
    },
    status(next) {
      if (region === undefined) return;
      clock.set(next);
      draw();
    },
    suspend() {
      suspended = true;
      draw();
    },
    resume() {
      suspended = false;
      draw();
    },
    input(next) {
      input = next;
      draw();
    },
    redraw: draw,
    clear() {
      if (region === undefined) return;
      erase();
      options.activity.write(`\u001b[H\u001b[2J${compose()}`);
    },
    close() {
      if (closed) return;
      clock.set(undefined);
      input = undefined;
      previewText = "";
      const out = erase();
      if (out !== "") options.activity.write(out);
      closed = true;
      if (tail !== undefined) options[tail.stream].write(tail.text);
      tail = undefined;
    },
  };
}

/** A region's lines and where the input wants the cursor. */
interface Layout {
  readonly lines: readonly string[];
  readonly cursor: { readonly line: number; readonly index: number } | undefined;
}

interface PainterDeps {
  readonly terminal: ScreenOptions["status"];
  readonly columns: () => number;
  readonly layout: (width: number) => Layout;
  readonly closed: () => boolean;
  readonly write: (text: string) => void;
}

interface Painter {
  /** The bytes that erase the region as drawn (it counts as not drawn after). */
  erase(): string;
  /** The bytes that draw the region from its line `from` on. */
  compose(from?: number): string;
  /** Draws the region again, from the first line that changed. */
  draw(): void;
}

/** Draws the live region and remembers what it drew, to redraw only what changed. */
function createPainter(deps: PainterDeps): Painter {
  /** Rows from the region's first row to the cursor's; undefined while nothing is drawn. */
  let cursorRow: number | undefined;
  /** The region's lines as last drawn, with the row each starts at. */
  let drawn: (Layout & { readonly starts: readonly number[]; readonly width: number }) | undefined;

  const erase = (): string => {
    if (cursorRow === undefined) return "";
    const up = cursorRow > 0 ? `\u001b[${cursorRow}A` : "";
    cursorRow = undefined;
    drawn = undefined;
    return `\r${up}\u001b[J`;
  };

  /**
   * The region drawn from its line `from` on, the cursor left where the input wants it. Lines
   * before `from` are the ones already on screen, unchanged (the cursor must be at `from`'s
   * first row, its first column); 0 draws it all.
   */
  const compose = (from = 0): string => {
    drawn = undefined;
    if (deps.terminal === undefined || deps.closed()) return "";
    const width = deps.columns();
    const { lines, cursor } = deps.layout(width);
    if (lines.length === 0) return "";
    const starts: number[] = [];
    let rows = 0;
    for (const line of lines) {
      starts.push(rows);
      rows += rowsOf(line, width);
    }
    // Styling left open above must not run into the region (with styling off, none was opened).
    let out = `${deps.terminal.style.enabled ? "\u001b[0m" : ""}${lines.slice(from).join("\r\n")}`;
    let endRow = rows - 1;
    const last = endOf(lines.at(-1) ?? "", width);
    if (last.col === width) {
      // A last row exactly full leaves the cursor waiting to wrap: make it wrap.
      out += " \r\u001b[K";
      endRow += 1;
    }
    let target = { row: endRow, col: last.col === width ? 0 : last.col };
    if (cursor !== undefined) {
      const line = lines[cursor.line] ?? "";
      const at = endOf(line.slice(0, cursor.index), width);
      const start = starts[cursor.line] ?? 0;
      target =
        at.col === width
          ? { row: start + at.row + 1, col: 0 }
          : {
              row: start + at.row,
              col: at.col,
            };
      target = { row: Math.min(target.row, endRow), col: target.col };
      const up = endRow - target.row;
      out += `${up > 0 ? `\u001b[${up}A` : ""}\r${target.col > 0 ? `\u001b[${target.col}C` : ""}`;
    }
    cursorRow = target.row;
    drawn = { lines, starts, width, cursor };
    return out;
  };

  /**
   * Draws the region again. Only the part from the first line that changed is redrawn: a
   * growing preview or a ticking clock sends a row or two, not the whole region.
   */
  const draw = () => {
    if (deps.terminal === undefined || deps.closed()) return;
    const before = drawn;
    const at = cursorRow;
    if (before !== undefined && at !== undefined && before.width === deps.columns()) {
      const { lines, cursor } = deps.layout(before.width);
      let same = 0;
      while (
        same < lines.length &&
        same < before.lines.length &&
        lines[same] === before.lines[same]
      )
        same += 1;
      const moved = cursor?.line !== before.cursor?.line || cursor?.index !== before.cursor?.index;
      // Nothing changed: nothing to send.
      if (same === lines.length && same === before.lines.length && !moved) return;
      // Lines only added: the last old one is drawn again, to move on from its end.
      const from = same === before.lines.length ? same - 1 : same;
      const first = before.starts[from];
      if (from > 0 && first !== undefined && first <= at) {
        const up = at - first;
        const out = `\r${up > 0 ? `\u001b[${up}A` : ""}\u001b[J${compose(from)}`;
        deps.write(`${SYNC_START}${out}${SYNC_END}`);
        return;
      }
    }
    const out = erase() + compose();
    if (out !== "") deps.write(`${SYNC_START}${out}${SYNC_END}`);
  };

  return { erase, compose, draw };
}

interface StatusClock {
  /** The label shown, if any. */
  readonly label: string | undefined;
  /** Shows `label` from now (its time starts again when it changes); undefined stops the clock. */
  set(label: string | undefined): void;
  /** The status line in `width` columns; undefined without a label. */
  line(style: Style, width: number): string | undefined;
}

/** The status line's label, its elapsed time and spinner; `tick` runs at every frame. */
function createStatusClock(now: () => number, tick: () => void): StatusClock {
  let label: string | undefined;
  let since = 0;
  let frame = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    get label() {
      return label;
    },
    set(next) {
      if (next !== label) since = now();
      label = next;
      if (label === undefined) {
        if (timer !== undefined) clearInterval(timer);
        timer = undefined;
      } else if (timer === undefined) {
        timer = setInterval(() => {
          frame += 1;
          tick();
        }, TICK_MS);
        timer.unref();
      }
    },
    line(style, width) {
      if (label === undefined) return undefined;
      const seconds = Math.floor((now() - since) / 1000);
      const suffix = ` · ${seconds}s`;
      // The label gives way, never the clock: the line must fit on one row.
      const room = Math.max(8, width - 3 - Bun.stringWidth(suffix));
      const cut = Bun.stringWidth(label) > room ? `${Bun.sliceAnsi(label, 0, room - 1)}…` : label;
      return style.dim(`${FRAMES[frame % FRAMES.length]} ${cut}${suffix}`);
    },
  };
}

/**
 * Splits `text` into what goes out now (whole lines) and the unfinished last line the region
 * keeps; of a last line taller than `room` rows, its whole rows go out now, so none scrolls
 * away undrawn.
 */
function splitTail(text: string, width: number, room: number): { done: string; rest: string } {
  const cut = text.lastIndexOf("\n") + 1;
  let done = text.slice(0, cut);
  let rest = text.slice(cut);
  if (rest !== "" && rowsOf(rest, width) > room) {
    const at = rowStart(rest, width, rowsOf(rest, width) - 1);
    done += `${rest.slice(0, at)}\n`;
    rest = rest.slice(at);
  }
  return { done, rest };
}
