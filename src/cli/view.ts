/** The live view a terminal surface renders into: styles, status line and renderer, from `CliIo`. */
import { type LiveRenderer, createLiveRenderer } from "./render.ts";
import { type Screen, createScreen } from "./screen.ts";
import { type Style, createStyle, isDumbTerminal, wantsColor } from "./style.ts";
import type { CliIo } from "./types.ts";

export interface TerminalView {
  readonly screen: Screen;
  readonly renderer: LiveRenderer;
  /** Styling of the activity stream. */
  readonly style: Style;
}

export interface ViewOptions {
  /** `stdout` for the chat (one stream for everything); `stderr` for `dsh exec`. */
  readonly activity: "stdout" | "stderr";
  readonly showReasoning: boolean;
  /** Whether an approval prompt showed this call's diff already. */
  readonly diffShown?: (callId: string) => boolean;
}

export function createTerminalView(io: CliIo, options: ViewOptions): TerminalView {
  const activityIsTTY = options.activity === "stdout" ? io.stdoutIsTTY : io.stderrIsTTY;
  const style = createStyle(wantsColor(io.env, activityIsTTY));
  const markdown = wantsColor(io.env, io.stdoutIsTTY);
  const screen = createScreen({
    answer: io.stdout,
    activity: options.activity === "stdout" ? io.stdout : io.stderr,
    answerOnTerminal: io.stdoutIsTTY,
    ...(activityIsTTY && !isDumbTerminal(io.env)
      ? { status: { style, columns: () => io.columns(), rows: () => io.rows() } }
      : {}),
    now: () => performance.now(),
  });
  const renderer = createLiveRenderer({
    screen,
    style,
    ...(markdown ? { markdown: { columns: Math.min(io.columns(), 100) } } : {}),
    // Into a pipe or a file, stdout gets the final answer only; commentary goes to stderr.
    finalAnswerOnly: options.activity === "stderr" && !io.stdoutIsTTY,
    showReasoning: options.showReasoning,
    ...(options.diffShown === undefined ? {} : { diffShown: options.diffShown }),
    spaced: io.stdoutIsTTY,
  });
  return { screen, renderer, style };
}
