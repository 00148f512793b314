/**
 * Terminal rendering of live events: the answer to one stream, reasoning and tool activity to
 * another. Pure formatting; the caller decides which streams those are.
 */
import type { LiveEvent } from "../agent/types.ts";
import type { RenderIntent } from "../tools/intent.ts";
import type { TextSink } from "./types.ts";

export type { TextSink };

export interface RenderOptions {
  readonly answer: TextSink;
  readonly activity: TextSink;
  /** ANSI styling on the activity stream. */
  readonly color: boolean;
}

export interface LiveRenderer {
  render(event: LiveEvent): void;
}

export function createLiveRenderer(options: RenderOptions): LiveRenderer {
  const dim = (text: string) => (options.color ? `\x1b[2m${text}\x1b[22m` : text);
  const red = (text: string) => (options.color ? `\x1b[31m${text}\x1b[39m` : text);
  /** What the last write on either stream was, so blocks start on a fresh line. */
  let last: "answer" | "reasoning" | "activity" | "none" = "none";
  let answerEndsWithNewline = true;
  let reasoningEndsWithNewline = true;

  const breakLine = () => {
    if (last === "answer" && !answerEndsWithNewline) options.answer.write("\n");
    if (last === "reasoning" && !reasoningEndsWithNewline) options.activity.write("\n");
    answerEndsWithNewline = true;
    reasoningEndsWithNewline = true;
  };

  const activity = (line: string) => {
    breakLine();
    options.activity.write(`${line}\n`);
    last = "activity";
  };

  return {
    render(event) {
      switch (event.type) {
        case "turn_start":
        case "usage":
          return;
        case "reasoning_delta":
          if (last !== "reasoning") breakLine();
          options.activity.write(dim(event.text));
          reasoningEndsWithNewline = event.text.endsWith("\n");
          last = "reasoning";
          return;
        case "text_delta":
          if (last !== "answer") breakLine();
          options.answer.write(event.text);
          answerEndsWithNewline = event.text.endsWith("\n");
          last = "answer";
          return;
        case "tool_call":
          activity(`${dim("▸")} ${intentTitle(event.intent)}`);
          return;
        case "tool_start":
        case "tool_progress":
          return;
        case "tool_result":
          for (const line of outputPreview(event.intent)) activity(dim(`  │ ${line}`));
          activity(
            event.isError
              ? red(`  ✗ ${firstLine(event.output)}`)
              : dim(`  ✓ ${resultSummary(event.intent)}`),
          );
          return;
        case "turn_end":
          breakLine();
          last = "none";
          return;
        default: {
          const unhandled: never = event;
          throw new Error(`unhandled live event ${JSON.stringify(unhandled)}`);
        }
      }
    },
  };
}

function intentTitle(intent: RenderIntent): string {
  return firstLine(intent.title);
}

function resultSummary(intent: RenderIntent): string {
  switch (intent.type) {
    case "terminal": {
      const exit = intent.exit;
      if (!exit) return "done";
      return exit.signal ? `killed by ${exit.signal}` : `exit ${exit.code ?? "?"}`;
    }
    case "diff":
      return intent.oldText === null ? "created" : "edited";
    case "generic":
      return "done";
    default: {
      const unhandled: never = intent;
      throw new Error(`unhandled intent ${JSON.stringify(unhandled)}`);
    }
  }
}

const PREVIEW_LINES = 6;

/** The last lines of a command's output, so the terminal shows what happened without flooding. */
function outputPreview(intent: RenderIntent): string[] {
  if (intent.type !== "terminal") return [];
  const lines = intent.output.replace(/\n+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return [];
  const shown = lines.slice(-PREVIEW_LINES).map(cut);
  return lines.length > PREVIEW_LINES
    ? [`… ${lines.length - PREVIEW_LINES} more lines`, ...shown]
    : shown;
}

function cut(line: string): string {
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

function firstLine(text: string): string {
  return cut(text.split("\n", 1)[0] ?? "");
}
