/**
 * The tool registry: the one place model-made tool calls enter dsh. It parses and validates
 * raw arguments with each tool's valibot schema, runs the tool, and presents call and result.
 * It never throws: every failure becomes an `isError` result the model can read.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { DshError, InvalidInputError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { ToolDefinition } from "../llm/types.ts";
import type { RenderIntent } from "../render/intent.ts";
import { type ParsedArguments, parseToolArguments } from "./raw-arguments.ts";
import type {
  AnyTool,
  ExecutedCall,
  PresentContext,
  ToolContext,
  ToolRegistry,
  ToolResult,
} from "./types.ts";

export interface ToolRegistryDeps {
  /** Where unexpected tool failures (bugs, not model mistakes) are reported. */
  readonly logger?: Logger;
  /**
   * How long a cancelled call may take to settle on its own before the registry answers
   * "cancelled" for it. Default `CANCEL_GRACE_MS`.
   */
  readonly cancelGraceMs?: number;
}

/** Default time a tool has after a cancel to return its own result (e.g. output so far). */
const CANCEL_GRACE_MS = 500;

/**
 * Creates a registry over `tools`, in the order given (definitions keep it). Throws when two
 * tools share a name or a tool's input schema has no JSON Schema form.
 */
export function createToolRegistry(
  tools: readonly AnyTool[],
  deps: ToolRegistryDeps = {},
): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new InvalidInputError(`duplicate tool name "${tool.name}"`);
    byName.set(tool.name, tool);
  }
  const names = tools.map((tool) => tool.name);
  const graceMs = deps.cancelGraceMs ?? CANCEL_GRACE_MS;
  // Built once, at creation: identical bytes on every request keep the provider's prompt
  // cache warm, and a schema JSON Schema cannot express fails at start-up, not mid-turn.
  const definitions: readonly ToolDefinition[] = tools.map(toDefinition);

  return {
    names,
    definitions(ctx) {
      if (ctx === undefined || tools.every((tool) => tool.available === undefined))
        return definitions;
      return definitions.filter((_, index) => tools[index]?.available?.(ctx) ?? true);
    },
    presentCall(name, rawArguments, ctx) {
      const tool = byName.get(name);
      const parsed = parseToolArguments(rawArguments);
      const fallback = genericIntent(name, prettyArguments(rawArguments, parsed));
      if (tool?.presentCall === undefined || !parsed.ok) return fallback;
      const input = v.safeParse(tool.input, parsed.value);
      if (!input.success) return fallback;
      return present(() => tool.presentCall?.(input.output, ctx), fallback);
    },
    async execute(name, rawArguments, ctx) {
      const tool = byName.get(name);
      if (tool === undefined) {
        // Only what this session offers: a client that cannot show forms never hears of the
        // question tool. (A tool not offered but called from history still answers for itself.)
        const offered = tools.filter((t) => t.available?.(ctx) ?? true).map((t) => t.name);
        return unknownToolCall(name, offered);
      }
      const parsed = parseToolArguments(rawArguments);
      if (!parsed.ok) return failed(name, `arguments were not valid JSON: ${parsed.error}`);
      const input = v.safeParse(tool.input, parsed.value);
      if (!input.success) {
        return failed(name, `invalid arguments for ${name}:\n${formatIssues(input.issues)}`);
      }
      const result = await run(tool, input.output, ctx, deps.logger, graceMs);
      const fallback = genericIntent(name, result.output);
      return { result, intent: presentResult(tool, input.output, result, ctx, fallback) };
    },
  };
}

const CANCELLED: ToolResult = { isError: true, output: "cancelled" };

/**
 * Runs the tool, raced against the turn's signal. After a cancel the tool has `graceMs` to
 * settle on its own (bash reports the output it had); then the call is "cancelled" whatever
 * the tool is doing, so a tool that ignores the signal or is stuck in a call that cannot be
 * interrupted never holds the turn. Its promise is left to settle; a failure then is logged.
 */
async function run(
  tool: AnyTool,
  input: unknown,
  ctx: ToolContext,
  logger: Logger | undefined,
  graceMs: number,
): Promise<ToolResult> {
  if (ctx.signal.aborted) return CANCELLED;
  let abandoned = false;
  // Called inside an async function so a tool that throws synchronously is caught too.
  const settled = (async () => tool.execute(input, ctx))().catch((error: unknown) => {
    if (abandoned) logLate(tool, error, logger);
    return failure(tool, error, ctx, logger);
  });
  const cancelled = Promise.withResolvers<ToolResult>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    timer = setTimeout(() => {
      abandoned = true;
      cancelled.resolve(CANCELLED);
    }, graceMs);
  };
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await Promise.race([settled, cancelled.promise]);
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
    clearTimeout(timer);
  }
}

function failure(
  tool: AnyTool,
  error: unknown,
  ctx: ToolContext,
  logger: Logger | undefined,
): ToolResult {
  if (ctx.signal.aborted) return CANCELLED;
  if (error instanceof DshError) return { isError: true, output: error.message };
  logger?.error("tool failed unexpectedly", { tool: tool.name, error });
  return { isError: true, output: `internal error: ${errorMessage(error)}` };
}

/** A tool that failed after its call was given up: a bug unless the cancel made it fail. */
function logLate(tool: AnyTool, error: unknown, logger: Logger | undefined): void {
  const expected =
    error instanceof DshError ||
    (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"));
  if (expected) logger?.debug("tool ended after it was cancelled", { tool: tool.name, error });
  else logger?.error("tool failed after it was cancelled", { tool: tool.name, error });
}

function presentResult(
  tool: AnyTool,
  input: unknown,
  result: ToolResult,
  ctx: PresentContext,
  fallback: RenderIntent,
): RenderIntent {
  if (tool.presentResult === undefined) return fallback;
  return present(() => tool.presentResult?.(input, result, ctx), fallback);
}

/** Runs a presenter; one that throws or returns nothing gets the fallback. */
function present(presenter: () => RenderIntent | undefined, fallback: RenderIntent): RenderIntent {
  try {
    return presenter() ?? fallback;
  } catch {
    return fallback;
  }
}

/** The error result of a call to a tool no registry has, naming the tools offered instead. */
export function unknownToolCall(name: string, offered: readonly string[]): ExecutedCall {
  const known = offered.length === 0 ? "none" : offered.join(", ");
  return failed(name, `unknown tool "${name}"; known tools: ${known}`);
}

function failed(name: string, output: string): ExecutedCall {
  return { result: { isError: true, output }, intent: genericIntent(name, output) };
}

function genericIntent(name: string, text: string): RenderIntent {
  return { type: "generic", title: name, kind: "other", text };
}

function prettyArguments(raw: string, parsed: ParsedArguments): string {
  return parsed.ok ? JSON.stringify(parsed.value, null, 2) : raw;
}

/** One line per issue with its argument path, e.g. `- offset: Invalid integer: Received 0.5`. */
function formatIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const where = v.getDotPath(issue) ?? "(arguments)";
      const missing =
        issue.type === "object" && issue.received === "undefined" && issue.path !== undefined;
      return `- ${where}: ${missing ? "required but missing" : issue.message}`;
    })
    .join("\n");
}

function toDefinition(tool: AnyTool): ToolDefinition {
  if (tool.parameters !== undefined)
    return { name: tool.name, description: tool.description, parameters: { ...tool.parameters } };
  const { $schema: _draft, ...parameters } = toJsonSchema(tool.input, {
    typeMode: "input",
    errorMode: "throw",
  });
  return { name: tool.name, description: tool.description, parameters: { ...parameters } };
}
