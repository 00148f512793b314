/**
 * The terminal as the live renderer shares it: the answer and activity streams plus one status
 * line ("⠹ running npm test · 12s") kept under the last line of output. Every write clears the
 * status line first and redraws it once the cursor is back at the start of a line. The line is
 * drawn with a carriage return and spaces only, so it needs no escape sequence; it is left out
 * entirely when the status stream is not a terminal, or one that cannot return the cursor.
 */
import type { Style } from "./style.ts";
import type { TextSink } from "./types.ts";

export interface Screen {
  readonly answer: TextSink;
  readonly activity: TextSink;
  /** Shows a status label with its elapsed time, replacing any other; undefined hides it. */
  status(label: string | undefined): void;
  /** Hides the status line while the user types (an approval, a question, the prompt). */
  suspend(): void;
  resume(): void;
  /** Stops the clock and clears the line. */
  close(): void;
}

export interface ScreenOptions {
  readonly answer: TextSink;
  readonly activity: TextSink;
  /** Whether writes to `answer` land on the terminal the status line is on. */
  readonly answerOnTerminal: boolean;
  /** Where the status line goes (the activity stream's terminal); none: no status line. */
  readonly status?: { readonly style: Style; readonly columns: () => number };
  readonly now: () => number;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK_MS = 100;

export function createScreen(options: ScreenOptions): Screen {
  const status = options.status;
  let label: string | undefined;
  let since = 0;
  let frame = 0;
  let drawnWidth = 0;
  let suspended = false;
  let atLineStart = true;
  let timer: ReturnType<typeof setInterval> | undefined;

  const clear = () => {
    if (drawnWidth === 0) return;
    options.activity.write(`\r${" ".repeat(drawnWidth)}\r`);
    drawnWidth = 0;
  };
  const draw = () => {
    if (status === undefined || label === undefined || suspended || !atLineStart) return;
    const seconds = Math.floor((options.now() - since) / 1000);
    const suffix = ` · ${seconds}s`;
    // The label gives way, never the clock: the line must fit, or the carriage return that
    // clears it would land on its second row.
    const room = Math.max(8, status.columns() - 3 - Bun.stringWidth(suffix));
    const cut = Bun.stringWidth(label) > room ? `${Bun.sliceAnsi(label, 0, room - 1)}…` : label;
    const shown = `${FRAMES[frame % FRAMES.length]} ${cut}${suffix}`;
    clear();
    options.activity.write(status.style.dim(shown));
    drawnWidth = Bun.stringWidth(shown);
  };
  const tick = () => {
    frame += 1;
    draw();
  };
  const wrap = (sink: TextSink, onTerminal: boolean): TextSink => ({
    write(text) {
      if (text === "") return;
      if (onTerminal) clear();
      sink.write(text);
      if (!onTerminal) return;
      atLineStart = text.endsWith("\n");
      draw();
    },
  });

  return {
    answer: wrap(options.answer, options.answerOnTerminal),
    activity: wrap(options.activity, true),
    status(next) {
      if (status === undefined) return;
      if (next !== label) since = options.now();
      label = next;
      if (label === undefined) {
        clear();
        if (timer !== undefined) clearInterval(timer);
        timer = undefined;
        return;
      }
      if (timer === undefined) {
        timer = setInterval(tick, TICK_MS);
        timer.unref();
      }
      draw();
    },
    suspend() {
      suspended = true;
      clear();
    },
    resume() {
      suspended = false;
      atLineStart = true;
      draw();
    },
    close() {
      label = undefined;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      clear();
    },
  };
}
