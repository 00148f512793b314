/**
 * `task`: runs a subagent, a turn loop of its own with a fresh context (its kind's system
 * prompt, the task's prompt as its first message) and the same model and effort as the
 * session unless its agent file names a model. Its final answer is the call's result. Each of
 * its steps is logged in the session's log as a `task_step` of the call (the task card's
 * progress, replayed on load), and each of its requests' usage with the call's id (it counts in
 * the session's cost). Several tasks of one step run side by side, at most `maxConcurrent`.
 */
import * as v from "valibot";
import type { ApprovalSeam } from "../../approval/types.ts";
import type { ChatMessage, ModelClient, ModelInfo } from "../../llm/types.ts";
import type { RenderIntent } from "../../render/intent.ts";
import { contextUsed, foldCost } from "../../session/context.ts";
import type { NewSessionEvent, SessionEvent } from "../../session/events.ts";
import type { SessionLog } from "../../session/types.ts";
import { createToolContext } from "../../tools/tool-context.ts";
import type { Tool, ToolContext, ToolRegistry, ToolResult } from "../../tools/types.ts";
import { runTurnLoop } from "../turn.ts";
import type { LiveEvent, SessionSettings } from "../types.ts";
import type { CustomAgent } from "./agent-files.ts";
import { childRegistry } from "./child-registry.ts";
import { createChildLog } from "./child-log.ts";
import { EXPLORE, GENERAL, type SubagentKind, customKind } from "./kinds.ts";
import { createSlots } from "./slots.ts";

export const TaskInput = v.object({
  description: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(200),
    v.description("What the task is, in a few words (shown to the user)."),
  ),
  prompt: v.pipe(
    v.string(),
    v.minLength(1),
    v.description(
      "The whole task for the subagent: it sees nothing of this conversation, so say what to " +
        "find or do, where to look, and what to answer with.",
    ),
  ),
  agent: v.optional(
    v.pipe(v.string(), v.minLength(1), v.description("Which agent runs it (default explore).")),
  ),
});
export type TaskInput = v.InferOutput<typeof TaskInput>;

export interface TaskDetails {
  readonly agent: string;
  readonly steps: readonly string[];
}

export interface TaskToolDeps {
  readonly log: SessionLog;
  /** The session's model client: each subagent gets a conversation of its own. */
  readonly client: ModelClient;
  readonly model: (id: string) => ModelInfo;
  /** The session's tools (without `task`). */
  readonly tools: ToolRegistry;
  readonly settings: () => SessionSettings;
  readonly approval: ApprovalSeam;
  /** Logs an event of the session and publishes its live form. */
  readonly record: (event: NewSessionEvent) => void;
  readonly publish: (event: LiveEvent) => void;
  readonly root: string;
  readonly maxRequests: number;
  readonly compactAt: number;
  readonly now: () => Date;
  /**
   * The session's environment lines (directories, platform, date, instructions) for every
   * subagent's prompt, as they are now: they change when a directory is added.
   */
  readonly environment: () => string;
  readonly agents: readonly CustomAgent[];
  /** Subagents that run at once; the rest wait. */
  readonly maxConcurrent: number;
}

export function createTaskTool(deps: TaskToolDeps): Tool<typeof TaskInput, TaskDetails> {
  const slots = createSlots(deps.maxConcurrent);
  // One system message per kind for the session: every subagent of a kind sends the same bytes
  // (until a directory is added to the session).
  const systems = new Map<string, Extract<ChatMessage, { role: "system" }>>();
  const systemOf = (kind: SubagentKind) => {
    const content = `${kind.prompt}\n\n${deps.environment()}`;
    let system = systems.get(kind.name);
    if (system?.content !== content) {
      system = { role: "system", content };
      systems.set(kind.name, system);
    }
    return system;
  };
  const kindOf = (name: string | undefined): SubagentKind | undefined => {
    if (name === undefined || name === "explore") return EXPLORE;
    if (name === "general") return GENERAL;
    const agent = deps.agents.find((entry) => entry.name === name);
    return agent === undefined ? undefined : customKind(agent);
  };
  return {
    name: "task",
    description: describeTask(deps.agents),
    input: TaskInput,
    async execute(input, ctx): Promise<ToolResult<TaskDetails>> {
      const kind = kindOf(input.agent);
      if (kind === undefined) {
        const names = ["explore", "general", ...deps.agents.map((agent) => agent.name)];
        return {
          isError: true,
          output: `no agent "${input.agent}"; agents: ${names.join(", ")}`,
        };
      }
      if (kind.model !== undefined) {
        try {
          deps.model(kind.model);
        } catch {
          return {
            isError: true,
            output: `the agent "${kind.name}" names the model "${kind.model}", which dsh does not know`,
          };
        }
      }
      const release = await slots.take(ctx.signal);
      if (release === undefined) return { isError: true, output: "cancelled" };
      try {
        return await runChild(deps, { kind, system: systemOf(kind), input, ctx });
      } finally {
        release();
      }
    },
    presentCall: (input) => taskIntent(input, []),
    presentResult: (input, result) =>
      taskIntent(input, result.details?.steps ?? [], result.output, result.details?.agent),
  };
}

/** The tool's description: what the agents are, the custom ones from their files. */
function describeTask(agents: readonly CustomAgent[]): string {
  const custom = agents.map((agent) => `\n- ${agent.name}: ${agent.description}`).join("");
  return (
    "Run a subagent on a self-contained task with a fresh context of its own, and get its " +
    "final answer back. Use it for work that would fill your context (exploring a codebase, " +
    "reading many files, a long investigation) or for independent pieces of work: several " +
    "task calls in one response run at the same time. The subagent sees nothing of this " +
    "conversation: the prompt must say everything it needs. Agents:\n" +
    "- explore (default): reads, searches and runs commands in a read-only sandbox; changes nothing.\n" +
    `- general: the session's tools and permissions; may change files.${custom}`
  );
}

function taskIntent(
  input: TaskInput,
  steps: readonly string[],
  answer?: string,
  agent?: string,
): RenderIntent {
  const lines = steps.join("\n");
  const text = answer === undefined ? lines : lines === "" ? answer : `${lines}\n\n${answer}`;
  return {
    type: "generic",
    kind: "think",
    title: cardTitle(agent ?? input.agent ?? "explore", input.description),
    text,
    ...(answer === undefined
      ? {}
      : { summary: `${steps.length} ${steps.length === 1 ? "step" : "steps"}` }),
  };
}

function cardTitle(agent: string, description: string): string {
  return `${agent}: ${description}`;
}

async function runChild(
  deps: TaskToolDeps,
  task: {
    readonly kind: SubagentKind;
    readonly system: Extract<ChatMessage, { role: "system" }>;
    readonly input: TaskInput;
    readonly ctx: ToolContext;
  },
): Promise<ToolResult<TaskDetails>> {
  const { kind, input, ctx } = task;
  const callId = ctx.toolCallId;
  const parentTurn = turnOfCall(deps.log.events, callId);
  const steps: string[] = [];
  const step = (line: string) => {
    steps.push(line);
    deps.record({ type: "task_step", turnId: parentTurn, callId, line });
  };
  // Its requests' usage is the session's: logged there with the call's id.
  const log = createChildLog(deps.log.header, (event) => {
    if (event.type !== "usage") return;
    const { seq: _seq, at: _at, ...usage } = event;
    deps.log.append({ ...usage, turnId: parentTurn, task: callId });
  });
  const settings = (): SessionSettings => {
    const session = deps.settings();
    return {
      ...session,
      model: kind.model ?? session.model,
      knobs: kind.knobs(session.knobs),
    };
  };
  const tools = childRegistry(deps.tools, kind);
  // Its questions go to the user like the session's, named after the task, on the task's card
  // (which keeps its title: a client relabels a card with the title a question carries).
  const card = cardTitle(kind.name, input.description);
  const approval: ApprovalSeam = {
    request: (request, signal) =>
      deps.approval.request(
        {
          ...request,
          title: `${input.description}: ${request.title}`,
          intent: { ...request.intent, title: card },
        },
        signal,
      ),
  };
  const turnId = `task-${callId}`;
  log.append({ type: "turn_start", turnId });
  log.append({ type: "user_message", turnId, content: [{ type: "text", text: input.prompt }] });
  log.append({ type: "prompt_submit", turnId });
  const outcome = await runTurnLoop(
    {
      log,
      client: deps.client.conversation(),
      tools,
      definitions: () => tools.definitions({ sessionId: ctx.sessionId }),
      system: task.system,
      cwd: deps.root,
      maxRequests: deps.maxRequests,
      settings,
      model: deps.model,
      toolContext: (_childCallId, signal, progress) =>
        createToolContext(
          {
            signal,
            sessionId: ctx.sessionId,
            // The user sees its questions on the task's card.
            toolCallId: callId,
            cwd: deps.root,
            knobs: settings().knobs,
            progress,
          },
          approval,
        ),
      record: (event) => {
        const logged = log.append(event);
        if (logged.type === "tool_result") step(stepLine(logged.intent, logged.isError));
      },
      publish: (event) => {
        if (event.type !== "usage") return;
        const events = deps.log.events;
        deps.publish({
          ...event,
          turnId: parentTurn,
          contextWindow: deps.model(deps.settings().model).contextWindow,
          contextUsed: contextUsed(events),
          costUsd: foldCost(events),
        });
      },
      compactAt: deps.compactAt,
      now: deps.now,
    },
    turnId,
    ctx.signal,
  );
  log.append({ type: "turn_end", turnId, reason: outcome.reason });
  const details: TaskDetails = { agent: kind.name, steps };
  const answer = lastAnswer(log.events, turnId);
  switch (outcome.reason) {
    case "end_turn":
      return { isError: false, output: answer || "(the subagent gave no answer)", details };
    case "cancelled":
      return { isError: true, output: "cancelled", details };
    default: {
      const why =
        outcome.reason === "error"
          ? `the subagent failed: ${outcome.error?.message ?? "unknown error"}`
          : `the subagent stopped (${outcome.reason})`;
      return { isError: true, output: answer === "" ? why : `${why}\n\n${answer}`, details };
    }
  }
}

/** The turn the call was logged in (it is logged before it runs). */
function turnOfCall(events: readonly SessionEvent[], callId: string): string {
  const call = events.findLast((event) => event.type === "tool_call" && event.callId === callId);
  return call?.type === "tool_call" ? call.turnId : "";
}

/** The text of the subagent's last step that said anything. */
function lastAnswer(events: readonly SessionEvent[], turnId: string): string {
  const texts = events.filter(
    (event): event is Extract<SessionEvent, { type: "assistant_text" }> =>
      event.type === "assistant_text" && event.turnId === turnId,
  );
  const last = texts.at(-1);
  if (last === undefined) return "";
  return texts
    .filter((event) => event.step === last.step)
    .map((event) => event.text)
    .join("")
    .trim();
}

/** One line per step, as the card shows it: "Read src/app.ts", "grep 'TODO' (12 matches)". */
export function stepLine(intent: RenderIntent, isError: boolean): string {
  const title = intent.title.replace(/\s+/g, " ").trim();
  if (isError) return `${title} (failed)`;
  if (intent.type === "terminal") {
    const code = intent.exit?.code;
    return code === undefined || code === 0 ? `$ ${title}` : `$ ${title} (exit ${code})`;
  }
  if (intent.type === "generic" && intent.summary !== undefined)
    return `${title} (${intent.summary})`;
  return title;
}
