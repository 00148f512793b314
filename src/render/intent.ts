/**
 * Render intents: how a tool call wants to be shown. Tools produce them, the session log
 * stores them (so replay needs no tool), and each surface maps them by switching on `type`.
 */
import * as v from "valibot";

export const ToolKind = v.picklist([
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "other",
]);
export type ToolKind = v.InferOutput<typeof ToolKind>;

/** An absolute path and an optional 1-based line the editor can follow. */
export const Location = v.object({
  path: v.string(),
  line: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type Location = v.InferOutput<typeof Location>;

export const GenericIntent = v.object({
  type: v.literal("generic"),
  title: v.string(),
  kind: ToolKind,
  text: v.optional(v.string()),
  /** A result in a few words ("12 matches in 3 files"), where the tool can say one. */
  summary: v.optional(v.string()),
  locations: v.optional(v.array(Location)),
});
export type GenericIntent = v.InferOutput<typeof GenericIntent>;

/** A command run by dsh itself. `exit` is absent while it runs. */
export const TerminalIntent = v.object({
  type: v.literal("terminal"),
  title: v.string(),
  command: v.string(),
  cwd: v.string(),
  output: v.string(),
  exit: v.optional(
    v.object({
      code: v.nullable(v.number()),
      signal: v.nullable(v.string()),
    }),
  ),
});
export type TerminalIntent = v.InferOutput<typeof TerminalIntent>;

/** A file change: absolute path, the old text (null for a new file) and the new text. */
export const DiffIntent = v.object({
  type: v.literal("diff"),
  title: v.string(),
  path: v.string(),
  oldText: v.nullable(v.string()),
  newText: v.string(),
  locations: v.optional(v.array(Location)),
});
export type DiffIntent = v.InferOutput<typeof DiffIntent>;

/** One item of the agent's plan. */
export const PlanItem = v.object({
  content: v.string(),
  status: v.picklist(["pending", "in_progress", "completed"]),
  priority: v.picklist(["high", "medium", "low"]),
});
export type PlanItem = v.InferOutput<typeof PlanItem>;

/**
 * The agent's whole plan, replacing any earlier one. Surfaces show it as a plan (a panel, a
 * checklist), not as a tool call.
 */
export const PlanIntent = v.object({
  type: v.literal("plan"),
  title: v.string(),
  entries: v.array(PlanItem),
});
export type PlanIntent = v.InferOutput<typeof PlanIntent>;

export const RenderIntent = v.variant("type", [
  GenericIntent,
  TerminalIntent,
  DiffIntent,
  PlanIntent,
]);
export type RenderIntent = v.InferOutput<typeof RenderIntent>;

/** The tool kind an editor shows for an intent: a terminal executes, a diff edits, a plan thinks. */
export function toolKindOf(intent: RenderIntent): ToolKind {
  switch (intent.type) {
    case "generic":
      return intent.kind;
    case "terminal":
      return "execute";
    case "diff":
      return "edit";
    case "plan":
      return "think";
    default: {
      const exhaustive: never = intent;
      return exhaustive;
    }
  }
}
