/**
 * Permission rules: decisions the user asked dsh to remember ("always allow"), each for one
 * project. A rule is data with one meaning, stated by its label in the prompt that made it.
 */
import * as v from "valibot";

/** Allows a command (escalated, or run where no sandbox works) whose leading words are these. */
export const CommandRule = v.object({
  type: v.literal("command"),
  words: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
});
/** Allows file writes outside the project under this directory (absolute, realpath'd). */
export const WriteDirRule = v.object({ type: v.literal("write_dir"), dir: v.string() });
/** Allows calls of one MCP tool (its model-facing name, `mcp__<server>__<tool>`). */
export const McpToolRule = v.object({ type: v.literal("mcp_tool"), tool: v.string() });

/**
 * Lets sandboxed commands connect to a host through dsh's proxy: a host name (every port), or
 * an IP address with its port (as `[network] allow` writes them).
 */
export const HostRule = v.object({
  type: v.literal("host"),
  host: v.pipe(v.string(), v.minLength(1)),
  port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535))),
});

export const Rule = v.variant("type", [CommandRule, WriteDirRule, McpToolRule, HostRule]);
export type Rule = v.InferOutput<typeof Rule>;

/** What an "always allow" answer to one request would save, and in which project. */
export interface RuleOffer {
  /** The project root (the repository root holding the session directory, else that directory). */
  readonly project: string;
  /** Every rule the request needs (a command line with several parts needs one per part). */
  readonly rules: readonly Rule[];
  /** States the rules and their scope, e.g. ``Always allow `npm test` in ~/src/app``. */
  readonly label: string;
}

/** A saved rule with its project, as `dsh rules` lists them. */
export interface SavedRule {
  readonly project: string;
  readonly rule: Rule;
}
