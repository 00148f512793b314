/**
 * `bash`: runs one shell command through the harness's command runner, in the sandbox of the
 * session's mode. Leaving the sandbox always goes through the approval seam: on the model's
 * request (`escalate`), or because no sandbox backend works here; nobody answering is a no.
 */
import * as v from "valibot";
import type { ApprovalKind } from "../approval/types.ts";
import { DshError } from "../errors.ts";
import { WINDOWS_FIX, noShellMessage } from "../exec/windows-shell.ts";
import type { CommandResult, CommandRunner, LimitHitReport } from "../exec/types.ts";
import { hostPortText } from "../network/host.ts";
import type { NetworkRequester } from "../network/types.ts";
import { projectRootOf } from "../rules/project.ts";
import type { SandboxMode } from "../permission/knobs.ts";
import type { RenderIntent, TerminalIntent } from "../render/intent.ts";
import type { ProgressExit, Tool, ToolContext, ToolResult } from "./types.ts";
import type { BackgroundJobs } from "./background/jobs.ts";

export const BashInput = v.object({
  command: v.pipe(
    v.string(),
    v.minLength(1),
    v.description("The shell command, run with bash -c in the session's working directory."),
  ),
  timeout_ms: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("Time limit in milliseconds (default 120000, clamped to 1000..600000)."),
    ),
  ),
  escalate: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Ask the user to run this command outside the sandbox (e.g. it needs the network or " +
          "writes outside the workspace). Give a justification.",
      ),
    ),
  ),
  justification: v.optional(
    v.pipe(
      v.string(),
      v.description("Why the command must run outside the sandbox; shown to the user."),
    ),
  ),
  run_in_background: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Start the command in the background (a dev server, a watcher, a long test run) and " +
          "return at once with its id; read its output with bash_output, end it with bash_kill. " +
          "It runs until it exits or the session ends (no timeout); at most 8 at once.",
      ),
    ),
  ),
});
export type BashInput = v.InferOutput<typeof BashInput>;

/** What the presenter needs; `ran` is false when the command was refused before it started. */
export interface BashDetails {
  readonly ran: boolean;
  readonly sandboxed: boolean;
  readonly cwd: string;
  /** The capped output shown in the terminal card (without the status line). */
  readonly output: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly droppedBytes: number;
  readonly durationMs: number;
  /** Started in the background: it still runs, and its card stays open until it exits. */
  readonly background?: true;
}

const TITLE_CHARS = 160;

export interface BashToolDeps {
  /** Runs the commands: the process's one runner, which owns their child processes. */
  readonly runner: CommandRunner;
  /** Where background commands live; without it `run_in_background` is refused. */
  readonly jobs?: BackgroundJobs;
}

/** Creates the `bash` tool over the given command runner. */
export function createBashTool(deps: BashToolDeps): Tool<typeof BashInput, BashDetails> {
  return {
    name: "bash",
    description:
      "Run a shell command (bash -c) in the session's working directory and return its exit " +
      "code and combined stdout/stderr. Commands run in a sandbox: under workspace-write they " +
      "may write only inside the working directory and /tmp (private to the command); .git/hooks, " +
      ".git/config and project configuration other programs run (.vscode/, .npmrc, .envrc, " +
      ".cargo/config.toml, .dsh, ...) stay read-only (write those with write_file, which asks " +
      "the user); the network is reached only through dsh's proxy (HTTP_PROXY, HTTPS_PROXY " +
      "and ALL_PROXY are set; curl, git over https, npm, pip, cargo, go and bun use it): " +
      "allowed hosts pass, the user is asked about others, and direct connections (ssh, UDP, " +
      "DNS) fail. stdin is empty. Long output " +
      "keeps its beginning and end. Set escalate: true with a justification to ask the user to " +
      "run a command outside the sandbox.",
    input: BashInput,
    execute: (input, ctx) =>
      input.run_in_background === true
        ? startInBackground(deps, input, ctx)
        : executeBash(deps.runner, input, ctx),
    presentCall: (input, ctx) => terminalIntent(input.command, ctx.cwd),
    presentResult: (input, result, ctx): RenderIntent => {
      // A command that never ran has no output: the reason is text, not a terminal's print.
      if (result.details?.ran === false) {
        return {
          type: "generic",
          kind: "execute",
          title: oneLine(input.command),
          text: result.output,
        };
      }
      const shown = {
        ...terminalIntent(input.command, result.details?.cwd ?? ctx.cwd),
        output: result.details?.output ?? result.output,
      };
      // A background command has no exit yet: its card stays a running terminal.
      if (result.details?.background === true) return shown;
      return {
        ...shown,
        exit: { code: result.details?.exitCode ?? null, signal: result.details?.signal ?? null },
      };
    },
  };
}

/** Starts the command as a background job of the session and returns its id at once. */
async function startInBackground(
  deps: BashToolDeps,
  input: BashInput,
  ctx: ToolContext,
): Promise<ToolResult<BashDetails>> {
  if (deps.jobs === undefined) return refused(ctx.cwd, "Background commands are not offered here.");
  const mode = await chooseMode(deps.runner, input, ctx);
  if (mode.type === "refused") return refused(ctx.cwd, mode.message);
  const request = commandRequest(input, ctx, mode.sandbox);
  // Its output keeps going to the call's card, which ends when the command does.
  const started = deps.jobs.start(ctx.sessionId, input.command, async (signal, onOutput) => {
    let exit: ProgressExit = { code: null, signal: null };
    try {
      const result = await deps.runner.run(
        { ...request, background: true },
        {
          signal,
          onOutput: (text) => {
            onOutput(text);
            ctx.progress(text);
          },
        },
      );
      exit = { code: result.exitCode, signal: result.signal };
      return result;
    } finally {
      ctx.progress("", exit);
    }
  });
  if ("refused" in started) return refused(ctx.cwd, started.refused);
  const where = mode.sandbox === "danger-full-access" ? "unsandboxed" : `sandbox: ${mode.sandbox}`;
  const text =
    `id: ${started.job.id}\nstarted in the background (${where}); read its output with ` +
    `bash_output {"id": "${started.job.id}"}, end it with bash_kill; it ends with the session`;
  const details = refused(ctx.cwd, text).details;
  const sandboxed = mode.sandbox !== "danger-full-access";
  return {
    isError: false,
    output: text,
    details: { ...details, ran: true, sandboxed, output: "", background: true },
  };
}

/** What the runner is asked to run; a session's sandboxed commands share its network. */
function commandRequest(input: BashInput, ctx: ToolContext, sandbox: SandboxMode) {
  return {
    command: input.command,
    cwd: ctx.cwd,
    workspace: ctx.cwd,
    ...(ctx.roots === undefined || ctx.roots.length === 0 ? {} : { extraWorkspaces: ctx.roots }),
    sandbox,
    timeoutMs: input.timeout_ms,
    ...(sandbox === "danger-full-access"
      ? {}
      : { network: networkRequester(input, ctx), networkScope: ctx.sessionId }),
  };
}

async function executeBash(
  runner: CommandRunner,
  input: BashInput,
  ctx: ToolContext,
): Promise<ToolResult<BashDetails>> {
  const mode = await chooseMode(runner, input, ctx);
  if (mode.type === "refused") return refused(ctx.cwd, mode.message);
  let result: CommandResult;
  try {
    result = await runner.run(commandRequest(input, ctx, mode.sandbox), {
      signal: ctx.signal,
      onOutput: ctx.progress,
    });
  } catch (error) {
    if (!(error instanceof DshError)) throw error;
    return refused(ctx.cwd, `${error.message}\nThe command was not run.`);
  }
  const sandboxed = mode.sandbox !== "danger-full-access";
  const details: BashDetails = {
    ran: true,
    sandboxed,
    cwd: ctx.cwd,
    output: result.output,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    cancelled: result.cancelled,
    droppedBytes: result.droppedBytes,
    durationMs: result.durationMs,
  };
  const offerEscalation = sandboxed && ctx.knobs.approvalPolicy === "on-request";
  const hint = !offerEscalation
    ? ""
    : NO_ROUTE.test(result.output)
      ? NETWORK_HINT
      : BLOCKED.test(result.output)
        ? ESCALATION_HINT
        : "";
  const body = result.output.length === 0 ? "(no output)" : result.output;
  return {
    isError: result.exitCode !== 0,
    output: `${statusLine(result, mode.sandbox)}\n${body}${hint}`,
    details,
  };
}

type Mode = { type: "run"; sandbox: SandboxMode } | { type: "refused"; message: string };

const UNSANDBOXED: Mode = { type: "run", sandbox: "danger-full-access" };
const ESCALATION_DENIED =
  "Running this command outside the sandbox was not approved, so it was not run. " +
  "Try a way that works inside the sandbox, or explain to the user what you need.";
const NO_SANDBOX_REFUSED =
  "The command was not run, because running it unsandboxed needs the user's approval and it " +
  "was not given.";
const ESCALATION_HINT =
  "\n[this may have been blocked by the sandbox; if the command really needs it, call bash " +
  "again with escalate: true and a justification]";
// bwrap says EROFS, Seatbelt EPERM.
const BLOCKED = /Read-only file system|EROFS|Operation not permitted/;
const NETWORK_HINT =
  "\n[the sandbox has no direct network: connections go through dsh's proxy, which HTTP_PROXY, " +
  "HTTPS_PROXY and ALL_PROXY point at (curl, git over https, npm, pip, cargo, go and bun use " +
  "them); a tool that ignores them, ssh and UDP cannot connect: use one that honours them, " +
  "or call bash again with escalate: true and a justification]";
const NO_ROUTE = new RegExp(
  [
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "ENETUNREACH",
    "EAI_AGAIN",
  ].join("|"),
);

/** Decides where the command runs, asking the user when it would leave the sandbox. */
async function chooseMode(
  runner: CommandRunner,
  input: BashInput,
  ctx: ToolContext,
): Promise<Mode> {
  const preset = ctx.knobs.sandboxMode;
  if (preset === "danger-full-access") return { type: "run", sandbox: preset };
  if (input.escalate === true) {
    const reason = input.justification?.trim() || "(the model gave no justification)";
    const allowed = await ask(
      ctx,
      input,
      "escalate",
      "outside the sandbox",
      `the model's reason: ${reason}`,
    );
    return allowed ? UNSANDBOXED : { type: "refused", message: ESCALATION_DENIED };
  }
  const status = await runner.sandbox();
  if (status.ok) return { type: "run", sandbox: preset };
  const only = status.unsandboxedOnly;
  if (only !== undefined) {
    // No sandbox can exist here (Windows): each command is asked about, never covered by a rule.
    if (only.shell === undefined) return { type: "refused", message: noShellMessage() };
    const why =
      `Commands need WSL2 on Windows to run sandboxed (${WINDOWS_FIX}). This one would run ` +
      `outside any sandbox, in Git Bash (${only.shell}), with your full permissions; dsh asks ` +
      "about every such command.";
    const allowed = await ask(ctx, input, "unsandboxed", "without a sandbox", why, false);
    return allowed ? UNSANDBOXED : { type: "refused", message: `${why} ${NO_SANDBOX_REFUSED}` };
  }
  const fix = status.fix === undefined ? "" : ` (fix: ${status.fix})`;
  const why = `No sandbox is available on this machine: ${status.reason ?? "unknown reason"}${fix}.`;
  const allowed = await ask(
    ctx,
    input,
    "unsandboxed",
    "without a sandbox",
    `${why} The command would run with your full permissions.`,
  );
  return allowed ? UNSANDBOXED : { type: "refused", message: `${why} ${NO_SANDBOX_REFUSED}` };
}

async function ask(
  ctx: ToolContext,
  input: BashInput,
  kind: ApprovalKind,
  where: string,
  reason: string,
  rule = true,
): Promise<boolean> {
  const outcome = await ctx.ask({
    kind,
    title: `Run \`${oneLine(input.command)}\` ${where}`,
    reason,
    intent: terminalIntent(input.command, ctx.cwd),
    rawInput: input,
    // Both kinds that ask run the command outside the sandbox; without a subject no rule is
    // offered, and none covers it.
    ...(rule
      ? { subject: { type: "command", command: input.command, where: "outside_sandbox" } }
      : {}),
    cwd: ctx.cwd,
  });
  return outcome === "allow";
}

/** Who the command's connections are for: the question names the host and the command. */
function networkRequester(input: BashInput, ctx: ToolContext): NetworkRequester {
  const command = oneLine(input.command);
  return {
    sessionId: ctx.sessionId,
    label: command,
    project: projectRootOf(ctx.cwd),
    ask: (question, signal) =>
      ctx.ask(
        {
          kind: "network",
          title: `Let \`${command}\` connect to ${hostPortText(question.target)}`,
          reason: question.note ?? "",
          intent: terminalIntent(input.command, ctx.cwd),
          rawInput: input,
          subject: { type: "host", ...question.rule },
          cwd: ctx.cwd,
        },
        signal,
      ),
  };
}

function refused(cwd: string, message: string): ToolResult<BashDetails> & { details: BashDetails } {
  return {
    isError: true,
    output: message,
    details: {
      ran: false,
      sandboxed: false,
      cwd,
      output: message,
      exitCode: null,
      signal: null,
      timedOut: false,
      cancelled: false,
      droppedBytes: 0,
      durationMs: 0,
    },
  };
}

function statusLine(result: CommandResult, sandbox: SandboxMode): string {
  const where = sandbox === "danger-full-access" ? "unsandboxed" : `sandbox: ${sandbox}`;
  const took = `${(result.durationMs / 1000).toFixed(1)} s`;
  let what: string;
  if (result.cancelled) what = "cancelled; the command and its children were killed";
  else if (result.timedOut) what = "timed out; the command and its children were killed";
  else if (result.outputLimited === true)
    what = "output limit reached; the command and its children were killed";
  else if (result.signal !== null) what = `killed by ${result.signal}`;
  else what = `exit code ${result.exitCode}`;
  const limit = result.limitHit === undefined ? "" : `; ${limitNote(result.limitHit)}`;
  return `[${what}${limit}; ${where}; ${took}]`;
}

function limitNote(hit: LimitHitReport): string {
  const bound =
    hit.limit === "processes"
      ? `${hit.value} processes ([limits] processes)`
      : `${hit.value} MiB of memory ([limits] memory_mb)`;
  return `${hit.certain ? "it ran into" : "it likely ran into"} the sandbox's limit of ${bound}`;
}

function terminalIntent(command: string, cwd: string): TerminalIntent {
  return { type: "terminal", title: oneLine(command), command, cwd, output: "" };
}

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, " ").trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}
