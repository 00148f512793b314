/**
 * Terminal rendering of live events: the answer to one stream, reasoning and tool activity to
 * another, a status line saying what the turn is doing. Every string that came from the model,
 * a tool or a file is made safe to print here (`terminalText`) before it is styled.
 */
import type { LiveEvent } from "../agent/types.ts";
import { createTerminalTextSanitizer, terminalText } from "../render/terminal-text.ts";
import type { PlanIntent, RenderIntent } from "../render/intent.ts";
import { changedLines } from "./changed-lines.ts";
import { type CommandOutputView, createCommandOutputView, outputTail } from "./command-output.ts";
import { type MarkdownStream, createMarkdownStream } from "./markdown.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import type { TextSink } from "./types.ts";

export type { TextSink };

export interface RenderOptions {
  readonly screen: Screen;
  /** Styling of the activity stream (and of the answer when it is rendered as Markdown). */
  readonly style: Style;
  /** Render the answer as terminal Markdown, `columns` wide; otherwise it is printed as is. */
  readonly markdown?: { readonly columns: number };
  /**
   * Hold each step's text until the step ends: text followed by tool calls goes to the
   * activity stream, the last step's text to the answer stream (`dsh exec` into a pipe).
   */
  readonly finalAnswerOnly?: boolean;
  /** The answer shares the screen with the activity: a blank line sets it apart. */
  readonly spaced?: boolean;
  /** Show the model's reasoning (dimmed); otherwise only the status line says it thinks. */
  readonly showReasoning: boolean;
  /** Whether an approval prompt already showed this call's diff (then its result does not). */
  readonly diffShown?: (callId: string) => boolean;
}

export interface LiveRenderer {
  render(event: LiveEvent): void;
}

export function createLiveRenderer(options: RenderOptions): LiveRenderer {
  const { screen, style } = options;
  const blocks = createBlocks(screen, style, options.spaced === true);
  const { write, breakLine } = blocks;
  const answer = createAnswerStream(options, blocks);
  let reasoning = createTerminalTextSanitizer();
  const titles = new Map<string, string>();
  /** Open calls that show steps (tasks), and those of them that run beside another. */
  const tasks = new Set<string>();
  const crowded = new Set<string>();
  const outputs = new Map<string, CommandOutputView>();
  /** The plan as last printed: it is printed again only when it changes. */
  let shownPlan: string | undefined;
  /** The description of the turn's last notice. */
  let lastNotice: string | undefined;

  const activity = (line: string) => {
    answer.endBlock();
    breakLine();
    write("activity", `${line}\n`);
    blocks.last = "activity";
  };

  return {
    render(event) {
      switch (event.type) {
        case "turn_start":
          answer.start();
          reasoning = createTerminalTextSanitizer();
          lastNotice = undefined;
          screen.status("waiting for the model");
          return;
        case "compaction":
          if (event.status === "in_progress") screen.status("compacting the context");
          else if (event.status === "completed") activity(style.dim(`▸ ${compacted(event)}`));
          else if (event.status === "failed")
            activity(style.dim(`▸ ${oneLine(event.error ?? "compaction failed")}`));
          return;
        case "usage":
          return;
        case "reasoning_delta": {
          screen.status("thinking");
          if (!options.showReasoning) return;
          const shown = reasoning.push(event.text);
          if (shown === "") return;
          if (blocks.last !== "reasoning") breakLine();
          write("activity", style.dim(shown));
          blocks.last = "reasoning";
          return;
        }
        case "text_delta":
          screen.status("writing");
          answer.push(event.text);
          return;
        case "tool_call": {
          answer.endBlock();
          answer.commentary();
          if (event.intent.type === "plan") {
            const checklist = planChecklist(event.intent);
            if (checklist !== shownPlan) for (const line of checklist.split("\n")) activity(line);
            shownPlan = checklist;
            return;
          }
          const title = shortened(oneLine(event.intent.title));
          titles.set(event.callId, title);
          if (event.intent.type === "generic" && event.intent.kind === "think") {
            tasks.add(event.callId);
            if (tasks.size > 1) for (const id of tasks) crowded.add(id);
          }
          activity(`${style.cyan("▸")} ${title}`);
          return;
        }
        case "tool_start":
          screen.status(`running ${titles.get(event.callId) ?? "a tool"}`);
          return;
        case "tool_progress": {
          // A background command's output after its call's result is read with bash_output.
          if (!titles.has(event.callId)) return;
          let view = outputs.get(event.callId);
          if (view === undefined) {
            view = createCommandOutputView();
            outputs.set(event.callId, view);
          }
          // Tasks running side by side say whose line it is.
          const whose = crowded.has(event.callId) ? `${titles.get(event.callId)} › ` : "";
          for (const line of view.push(event.chunk)) activity(style.dim(`  │ ${whose}${line}`));
          return;
        }
        case "tool_result": {
          if (event.intent.type === "plan" && !event.isError) {
            titles.delete(event.callId);
            screen.status("waiting for the model");
            return;
          }
          const view = outputs.get(event.callId);
          outputs.delete(event.callId);
          const whose = crowded.has(event.callId) ? `${titles.get(event.callId)}: ` : "";
          titles.delete(event.callId);
          tasks.delete(event.callId);
          crowded.delete(event.callId);
          const diffShown = options.diffShown?.(event.callId) === true;
          for (const line of resultLines(event, view, style, diffShown, whose)) activity(line);
          screen.status("waiting for the model");
          return;
        }
        case "notice": {
          // The same reason again (a retry after a retry): the status line says it, not a new line.
          if (event.description !== undefined && event.description === lastNotice) {
            screen.status(oneLine(event.title));
            return;
          }
          lastNotice = event.description;
          const mark = event.severity === "info" ? style.dim("·") : style.yellow("!");
          const description = event.description === undefined ? "" : `: ${event.description}`;
          activity(`${mark} ${oneLine(`${event.title}${description}`)}`);
          return;
        }
        case "turn_end":
          answer.finish();
          breakLine();
          screen.status(undefined);
          blocks.last = "none";
          return;
        default: {
          const unhandled: never = event;
          throw new Error(`unhandled live event ${JSON.stringify(unhandled)}`);
        }
      }
    },
  };
}

type Block = "answer" | "reasoning" | "activity" | "none";

/** The two streams as blocks, each starting on a fresh line. */
function createBlocks(screen: Screen, style: Style, spaced: boolean) {
  const blocks = {
    /** What the last write was, so blocks start on a fresh line. */
    last: "none" as Block,
    lineOpen: false,
    write(sink: "answer" | "activity", chunk: string) {
      if (chunk === "") return;
      screen[sink].write(chunk);
      blocks.lineOpen = !chunk.endsWith("\n");
    },
    breakLine() {
      if (blocks.last === "answer" && blocks.lineOpen) blocks.write("answer", "\n");
      if (blocks.last === "reasoning" && blocks.lineOpen) blocks.write("activity", style.dim("\n"));
      blocks.lineOpen = false;
    },
    /** The answer starts (or goes on): on a fresh line, set apart from the activity above it. */
    startAnswer() {
      if (blocks.last === "answer") return;
      blocks.breakLine();
      if (spaced && (blocks.last === "activity" || blocks.last === "reasoning"))
        blocks.write("answer", "\n");
      blocks.last = "answer";
    },
  };
  return blocks;
}

/**
 * The answer as it streams: made safe to print, then rendered as Markdown (a block at a time,
 * the open one as a preview), held until its step ends (`finalAnswerOnly`), or printed as is.
 */
function createAnswerStream(options: RenderOptions, blocks: ReturnType<typeof createBlocks>) {
  const { screen } = options;
  let text = createTerminalTextSanitizer();
  let markdown: MarkdownStream | undefined;
  let held = "";
  const answer = (chunk: string) => {
    blocks.startAnswer();
    blocks.write("answer", chunk);
  };
  /** Prints what the answer holds back (a Markdown block, a step's text) before other output. */
  const endBlock = () => {
    const rest = text.end();
    if (markdown !== undefined) {
      const rendered = markdown.push(rest).commit + markdown.end();
      screen.preview("");
      if (rendered !== "") answer(rendered);
    } else if (options.finalAnswerOnly) {
      held += rest;
    } else if (rest !== "") answer(rest);
  };
  return {
    /** A turn starts: nothing held. */
    start() {
      text = createTerminalTextSanitizer();
      markdown = options.markdown ? createMarkdownStream(options.markdown.columns) : undefined;
      held = "";
    },
    push(delta: string) {
      const shown = text.push(delta);
      if (markdown !== undefined) {
        const room = screen.live ? screen.previewRoom() : undefined;
        const { commit, preview } = markdown.push(shown, room);
        if (commit !== "") answer(commit);
        if (preview !== "") blocks.startAnswer();
        screen.preview(preview);
      } else if (options.finalAnswerOnly) held += shown;
      else if (shown !== "") answer(shown);
    },
    endBlock,
    /** A step's held text before its tool calls: commentary, on the activity stream. */
    commentary() {
      const said = held.trim();
      held = "";
      if (said === "") return;
      blocks.breakLine();
      blocks.write("activity", `${said}\n`);
      blocks.last = "activity";
    },
    /** The turn ends: the last step's held text is the answer. */
    finish() {
      endBlock();
      if (options.finalAnswerOnly && held !== "") {
        const final = held.endsWith("\n") ? held : `${held}\n`;
        held = "";
        answer(final);
      }
    },
  };
}

/** What a tool's result shows under its call: the output's tail, an error, a diff, a summary. */
function resultLines(
  event: Extract<LiveEvent, { type: "tool_result" }>,
  view: CommandOutputView | undefined,
  style: Style,
  diffShown: boolean,
  /** Whose result it is, where tasks run side by side ("explore: …: "), else "". */
  whose: string,
): string[] {
  const { intent } = event;
  const output =
    view?.seen === true ? view.end() : intent.type === "terminal" ? outputTail(intent.output) : [];
  const lines = output.map((line) => style.dim(`  │ ${line}`));
  // A command that ran and failed has shown its output: the exit status says the rest.
  const ran = intent.type === "terminal" && intent.exit !== undefined;
  if (event.isError && !ran) {
    for (const line of errorLines(event.output)) lines.push(style.red(`  ✗ ${line}`));
    return lines;
  }
  if (!diffShown) for (const line of diffLines(intent, style)) lines.push(`  ${line}`);
  const summary = `${whose}${resultSummary(intent)}`;
  lines.push(commandFailed(intent) ? style.red(`  ✗ ${summary}`) : style.dim(`  ✓ ${summary}`));
  return lines;
}

/** A finished compaction, with the context's size before and after when known. */
function compacted(event: Extract<LiveEvent, { type: "compaction" }>): string {
  const { tokensBefore, tokensAfter } = event;
  if (tokensBefore === undefined || tokensAfter === undefined) return "context compacted";
  const count = (n: number) => Math.round(n).toLocaleString("en-US");
  return `context compacted: ${count(tokensBefore)} → ${count(tokensAfter)} tokens`;
}

/** A title, path or message on one line, safe to print, never cut. */
function oneLine(text: string): string {
  return terminalText(text)
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

/** A tool title (a whole command, say) is shown up to this many characters. */
const TITLE_CHARS = 400;
function shortened(title: string): string {
  const chars = Array.from(title);
  return chars.length > TITLE_CHARS ? `${chars.slice(0, TITLE_CHARS - 1).join("")}…` : title;
}

/** The lines an error result shows: all of a short message, the start of a long one. */
const ERROR_LINES = 8;
function errorLines(output: string): string[] {
  const lines = terminalText(output).trim().split("\n");
  if (lines.length <= ERROR_LINES) return lines;
  return [...lines.slice(0, ERROR_LINES), `… ${lines.length - ERROR_LINES} more lines`];
}

/** A file change as coloured `-`/`+` lines (bounded). */
function diffLines(intent: RenderIntent, style: Style): string[] {
  if (intent.type !== "diff") return [];
  const before = intent.oldText === null ? null : terminalText(intent.oldText);
  return changedLines(before, terminalText(intent.newText)).map((line) => {
    if (line.startsWith("+ ")) return style.green(line);
    if (line.startsWith("- ")) return style.red(line);
    return style.dim(line);
  });
}

/** A command that ran and exited non-zero (or was killed): the tool worked, the command did not. */
function commandFailed(intent: RenderIntent): boolean {
  if (intent.type !== "terminal" || intent.exit === undefined) return false;
  return intent.exit.signal !== null || (intent.exit.code ?? 0) !== 0;
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
      return intent.summary ?? "done";
    case "plan":
      return "plan updated";
    default: {
      const unhandled: never = intent;
      throw new Error(`unhandled intent ${JSON.stringify(unhandled)}`);
    }
  }
}

const PLAN_MARKS = { completed: "[x]", in_progress: "[>]", pending: "[ ]" } as const;

/** The plan as a checklist: done, in progress and pending items each with their mark. */
function planChecklist(plan: PlanIntent): string {
  const items = plan.entries.map(
    (entry) => `  ${PLAN_MARKS[entry.status]} ${oneLine(terminalText(entry.content))}`,
  );
  return ["Plan:", ...items].join("\n");
}
