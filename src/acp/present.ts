/**
 * Render intent → ACP tool-call shapes. The bridge shows every tool through this one switch on
 * the intent union; it never looks at a tool's name. Terminal intents use Zed's `_meta`
 * terminal convention (acp.md §7) only when the client advertised `_meta.terminal_output`.
 */
import type * as acp from "@agentclientprotocol/sdk";
import {
  type Location,
  type RenderIntent,
  type TerminalIntent,
  toolKindOf,
} from "../render/intent.ts";

/** What the client can render, read once from `initialize`. */
export interface PresentOptions {
  /** `clientCapabilities._meta.terminal_output === true`: live terminal cards. */
  readonly terminalOutput: boolean;
}

/** Longest tool output shown as text content; the model-facing output is not affected. */
const MAX_TEXT_OUTPUT = 64 * 1024;

/** The ACP tool kind of an intent. */
export const kindOf = toolKindOf;

/**
 * Follow-the-agent locations. Intents carry 1-based lines; Zed (the reference client) reads
 * `line` as a 0-based row (zed.md §3), so the line is shifted down by one.
 */
function locationsOf(intent: RenderIntent): acp.ToolCallLocation[] {
  switch (intent.type) {
    case "generic":
      return (intent.locations ?? []).map(toAcpLocation);
    case "diff":
      return (intent.locations ?? [{ path: intent.path }]).map(toAcpLocation);
    case "terminal":
    case "plan":
      return [];
    default: {
      const exhaustive: never = intent;
      return exhaustive;
    }
  }
}

function toAcpLocation(location: Location): acp.ToolCallLocation {
  return location.line === undefined
    ? { path: location.path }
    : { path: location.path, line: location.line - 1 };
}

/** The content list of an intent (replaces the client's list wholesale). */
export function contentOf(
  intent: RenderIntent,
  toolCallId: string,
  options: PresentOptions,
): acp.ToolCallContent[] {
  switch (intent.type) {
    case "generic":
      return intent.text === undefined || intent.text === "" ? [] : [textContent(intent.text)];
    case "diff":
      return [
        { type: "diff", path: intent.path, oldText: intent.oldText, newText: intent.newText },
      ];
    case "terminal":
      return options.terminalOutput
        ? [{ type: "terminal", terminalId: toolCallId }]
        : [textContent(terminalText(intent))];
    case "plan":
      // Shown as a `plan` update, not a card (update-mapper.ts); this is for a card anyway.
      return [textContent(intent.entries.map((e) => `- [${e.status}] ${e.content}`).join("\n"))];
    default: {
      const exhaustive: never = intent;
      return exhaustive;
    }
  }
}

/** A `tool_call` announcing a call before it runs (`pending` until its `tool_start`). */
export function presentCall(
  call: {
    readonly callId: string;
    readonly name: string;
    readonly rawInput: unknown;
    readonly intent: RenderIntent;
  },
  options: PresentOptions,
): acp.SessionUpdate {
  const { callId, intent } = call;
  const update: acp.SessionUpdate = {
    sessionUpdate: "tool_call",
    toolCallId: callId,
    title: intent.title,
    name: call.name,
    kind: kindOf(intent),
    status: "pending",
    rawInput: call.rawInput,
    content: contentOf(intent, callId, options),
    locations: locationsOf(intent),
  };
  if (intent.type === "terminal" && options.terminalOutput) {
    update._meta = { terminal_info: { terminal_id: callId, cwd: intent.cwd } };
  }
  return update;
}

/** Live output of a terminal card: Zed appends `data` to its emulator, which wants CRLF. */
export function presentTerminalOutput(toolCallId: string, data: string): acp.SessionUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId,
    _meta: { terminal_output: { terminal_id: toolCallId, data: data.replace(/\r?\n/g, "\r\n") } },
  };
}

/** Running output of a command shown as text (clients without terminal cards). */
export function presentOutputSoFar(
  toolCallId: string,
  intent: TerminalIntent,
  output: string,
): acp.SessionUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId,
    content: [textContent(terminalText({ ...intent, output }))],
  };
}

/** What the bridge knows of a call when its result arrives. */
export interface FinishedCall {
  readonly callId: string;
  /** The intent the call was announced with. */
  readonly callIntent: RenderIntent;
  readonly isError: boolean;
  readonly output: string;
  /** The result's intent, absent when the call never produced one (cancelled, crashed). */
  readonly intent?: RenderIntent;
  /** Whether live output already reached the client's terminal card. */
  readonly streamed: boolean;
}

/**
 * The final updates of a call: with terminal cards, any output not streamed yet, then the exit
 * in its own notification (as the reference adapters do); otherwise one update with the result.
 */
export function presentResult(call: FinishedCall, options: PresentOptions): acp.SessionUpdate[] {
  const intent = call.intent ?? call.callIntent;
  const status = call.isError || call.intent === undefined ? "failed" : "completed";
  const content = contentOf(intent, call.callId, options);
  if (content.length === 0 && status === "failed" && call.output !== "") {
    content.push(textContent(clip(call.output)));
  }
  const final: acp.SessionUpdate = {
    sessionUpdate: "tool_call_update",
    toolCallId: call.callId,
    status,
    title: intent.title,
    kind: kindOf(intent),
    content,
    locations: locationsOf(intent),
  };
  const announcedTerminal = call.callIntent.type === "terminal" && options.terminalOutput;
  if (!announcedTerminal) return [final];
  const updates: acp.SessionUpdate[] = [];
  if (!call.streamed && intent.type === "terminal" && intent.output !== "") {
    updates.push(presentTerminalOutput(call.callId, intent.output));
  }
  const exit = intent.type === "terminal" ? intent.exit : undefined;
  final._meta = {
    terminal_exit: {
      terminal_id: call.callId,
      exit_code: exitCode(exit?.code),
      signal: exit?.signal ?? null,
    },
  };
  updates.push(final);
  return updates;
}

/**
 * A call's result while the command it started still runs (in the background): the call is
 * done, its terminal card stays live (no exit yet).
 */
export function presentStillRunning(
  callId: string,
  intent: TerminalIntent,
  options: PresentOptions,
): acp.SessionUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: callId,
    status: "completed",
    title: intent.title,
    kind: kindOf(intent),
    content: contentOf(intent, callId, options),
  };
}

/** The end of a background command's terminal card. */
export function presentTerminalExit(
  callId: string,
  exit: { readonly code: number | null; readonly signal: string | null },
): acp.SessionUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: callId,
    _meta: {
      terminal_exit: { terminal_id: callId, exit_code: exitCode(exit.code), signal: exit.signal },
    },
  };
}

/** Zed reads `exit_code` as an unsigned integer; anything else is "unknown". */
function exitCode(code: number | null | undefined): number | null {
  return typeof code === "number" && Number.isInteger(code) && code >= 0 ? code : null;
}

/** A command, its output and how it ended, as Markdown (clients without terminal cards). */
export function terminalText(intent: TerminalIntent): string {
  const body = [
    `$ ${intent.command}`,
    ...(intent.output === "" ? [] : [clip(intent.output).replace(/\n$/, "")]),
  ];
  const text = fence("sh", body.join("\n"));
  if (intent.exit === undefined) return text;
  if (intent.exit.signal !== null) return `${text}\n\nkilled by ${intent.exit.signal}`;
  return `${text}\n\nexit code ${intent.exit.code ?? "unknown"}`;
}

/** A fenced code block whose fence is longer than any backtick run inside it. */
export function fence(language: string, body: string): string {
  let longest = 0;
  for (const run of body.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const marks = "`".repeat(Math.max(3, longest + 1));
  return `${marks}${language}\n${body}\n${marks}`;
}

/** Keeps the tail of a long output, saying how much was left out. */
export function clip(text: string, limit = MAX_TEXT_OUTPUT): string {
  if (text.length <= limit) return text;
  return `… (${text.length - limit} characters omitted)\n${text.slice(text.length - limit)}`;
}

export function textContent(text: string): acp.ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}
