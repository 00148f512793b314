/**
 * Permission rules: decisions the user asked dsh to remember ("always allow"), each for one
 * project. A rule is data with one meaning, stated by its label in the prompt that made it.
 */
import * as v from "valibot";

/**
 * Where a command a rule allows runs. Every command that asks today would leave the sandbox (an
 * escalation, or a machine where no sandbox works), so every command rule says
 * `outside_sandbox`; rules saved before the field existed were made the same way and read so.
 */
export const CommandPlace = v.picklist(["outside_sandbox"]);
export type CommandPlace = v.InferOutput<typeof CommandPlace>;

/**
 * What a remembered "always allow" rule could cover; set by the tool that asks (the approval
 * seam's requests carry it).
 */
export type ApprovalSubject =
  /** Shell text, and where it would run. */
  | { readonly type: "command"; readonly command: string; readonly where: CommandPlace }
  /** A file to write outside the project (its real path). */
  | { readonly type: "write"; readonly path: string }
  /** A call of one MCP tool: the server's name and the tool's, as the server names it. */
  | { readonly type: "mcp_tool"; readonly server: string; readonly tool: string }
  /** Connections to a host: a name (every port), or an address with its port. */
  | { readonly type: "host"; readonly host: string; readonly port?: number };

/** Allows a command line whose every simple command starts with these words, run `where`. */
export const CommandRule = v.object({
  type: v.literal("command"),
  words: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
  where: v.optional(CommandPlace, "outside_sandbox"),
});
/** Allows file writes outside the project under this directory (absolute, realpath'd). */
export const WriteDirRule = v.object({ type: v.literal("write_dir"), dir: v.string() });
/**
 * Allows calls of one MCP tool: `tool` as its server names it, on the server named `server`.
 * Rules saved before servers were named hold only the model-facing name in `tool` and no
 * `server`; such a rule covers nothing (that name could belong to more than one server's tool).
 */
export const McpToolRule = v.object({
  type: v.literal("mcp_tool"),
  server: v.optional(v.string()),
  tool: v.string(),
});

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
  /** States the rules and their scope, e.g. ``Always allow `npm test` outside the sandbox in ~/src/app``. */
  readonly label: string;
}

/** A saved rule with its project, as `dsh rules` lists them. */
export interface SavedRule {
  readonly project: string;
  /** The rule, or undefined for an entry this version cannot read (it covers nothing). */
  readonly rule: Rule | undefined;
}
