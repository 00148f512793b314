/**
 * `dsh exec "PROMPT"`: one turn. The session id first (stderr), so a killed run can be
 * resumed; the final answer on stdout (streamed as Markdown to a terminal; into a pipe only
 * the last step's text, commentary before tool calls going to stderr); reasoning, tool
 * activity and a status line on stderr, and last the session with its context and cost. `--json` puts one JSON event per line
 * on stdout instead, and nothing else.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { LiveEvent, TurnOutcome } from "../agent/types.ts";
import type { ApprovalAnswerer } from "../approval/types.ts";
import { DshError, errorMessage } from "../errors.ts";
import { terminalText } from "../render/terminal-text.ts";
import { adviceFor } from "./advice.ts";
import { jsonEventsOf, jsonLine } from "./exec-json.ts";
import { printError } from "./io.ts";
import { describeOutcome } from "./outcome.ts";
import { formatStatusLine } from "./status-line.ts";
import type { CliIo, OpenSession, TerminalSession } from "./types.ts";
import { createTerminalView } from "./view.ts";

export interface ExecRequest {
  /** The prompt words joined; `-` or none means read standard input. */
  readonly prompt?: string;
  /** Piped standard input, appended to a prompt given as words; undefined when none. */
  readonly piped: () => Promise<string | undefined>;
  readonly open: OpenSession;
  /** `--json`: JSON lines on stdout. */
  readonly json: boolean;
  /** `-o FILE`: where the last message is written. */
  readonly outputLastMessage?: string;
}

/** Why a request for approval is refused in a one-shot run, and what to do instead. */
const UNANSWERED =
  "not allowed without approval (no one can answer in exec; use --permission or a rule)";

/** Runs the command and returns the exit code: 0 for a finished answer, 1 otherwise, 130 on Ctrl-C. */
export async function runExec(io: CliIo, request: ExecRequest): Promise<number> {
  const fail = (message: string, code: number) => {
    if (request.json) io.stdout.write(jsonLine({ type: "error", message }));
    else printError(io, message);
    return code;
  };
  const prompt = await promptOf(request);
  if (prompt === undefined)
    return fail('dsh exec needs a prompt: dsh exec "fix the failing test", or pipe one in', 2);
  if (prompt.trim() === "") return fail("the prompt is empty", 2);

  // Nobody can approve anything in a one-shot run: every approval is denied, and said so.
  let said: (line: string) => void = () => {};
  const nobody: ApprovalAnswerer = {
    async answer(asked) {
      said(`${terminalText(asked.title)}: ${UNANSWERED}`);
      return "deny";
    },
  };
  let session: TerminalSession;
  try {
    session = await request.open({ answerers: [nobody], questioners: [] });
  } catch (error) {
    if (!request.json) throw error;
    return fail(errorMessage(error), error instanceof DshError && error.code === "usage" ? 2 : 1);
  }
  await using _session = session;
  const { handle } = session;
  const model = handle.settings().model;
  if (request.json)
    io.stdout.write(jsonLine({ type: "session", id: handle.sessionId, cwd: handle.cwd, model }));
  else io.stderr.write(`session ${handle.sessionId}\n`);

  const view = request.json
    ? undefined
    : createTerminalView(io, { activity: "stderr", showReasoning: true });
  said = (line) => {
    if (view === undefined)
      io.stdout.write(jsonLine({ type: "notice", severity: "warning", title: line }));
    else view.screen.activity.write(`${view.style.yellow("!")} ${line}\n`);
  };
  let lastMessage = "";
  const onEvent = (event: LiveEvent) => {
    if (event.type === "tool_call") lastMessage = "";
    if (event.type === "text_delta") lastMessage += event.text;
    if (view === undefined) for (const line of jsonEventsOf(event)) io.stdout.write(jsonLine(line));
    else view.renderer.render(event);
  };
  const events = handle.events();
  const rendering = (async () => {
    for await (const event of events) {
      onEvent(event);
      if (event.type === "turn_end") return;
    }
  })();

  // The prompt's one controller: the first Ctrl-C aborts it.
  const turn = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) {
      // A second Ctrl-C: the default action, which ends the process at once.
      process.off("SIGINT", onSigint);
      process.kill(process.pid, "SIGINT");
      return;
    }
    interrupted = true;
    turn.abort();
  };
  process.on("SIGINT", onSigint);
  let outcome: TurnOutcome;
  try {
    outcome = await handle.prompt([{ type: "text", text: prompt }], turn.signal);
    await rendering;
  } finally {
    process.off("SIGINT", onSigint);
    view?.screen.close();
  }
  if (request.outputLastMessage !== undefined) {
    const path = resolve(io.cwd, request.outputLastMessage);
    try {
      writeFileSync(path, lastMessage);
    } catch (error) {
      printError(io, `could not write the last message to ${path}: ${errorMessage(error)}`);
      return 1;
    }
  }
  // Last, the session again (to resume it) with its context and cost.
  if (view !== undefined)
    io.stderr.write(
      view.style.dim(`session ${handle.sessionId} · ${formatStatusLine(handle.status())}\n`),
    );
  if (outcome.reason === "end_turn") return 0;
  if (!request.json) {
    const line =
      outcome.reason === "error" && outcome.error !== undefined
        ? adviceFor(outcome.error, {
            model,
            baseUrl: session.baseUrl(model),
            keyOrigin: session.keyOrigin,
          })
        : describeOutcome(outcome);
    printError(io, line);
    if (outcome.reason === "cancelled")
      io.stderr.write(`resume it with: dsh exec --resume ${handle.sessionId} "PROMPT"\n`);
  }
  return outcome.reason === "cancelled" ? 130 : 1;
}

/**
 * The prompt: the words, standard input for `-` or no words, or the words with piped input
 * appended. Undefined when there are no words and nothing is piped in.
 */
async function promptOf(request: ExecRequest): Promise<string | undefined> {
  const piped = await request.piped();
  if (request.prompt === "-") return piped ?? "";
  if (request.prompt === undefined) return piped;
  if (piped === undefined || piped.trim() === "") return request.prompt;
  return `${request.prompt}\n\n${piped}`;
}
