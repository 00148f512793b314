/**
 * The names MCP tools are offered to the model under (interface.md: `mcp__<server>__<tool>`).
 * A name depends on its own server and tool only, never on which other tools are up, so it is
 * the same in every request of a session (the prompt cache holds) and in every session.
 */

/** Longest tool name the OpenAI-compatible APIs accept. */
const MAX_TOOL_NAME = 64;
/** A server name that reads back from `mcp__<server>__`: no `__` in it, no `_` at either end. */
const PLAIN_SERVER = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
const PLAIN_TOOL = /^[A-Za-z0-9_-]+$/;
/** Hex digits of the suffix that sets a name apart when its plain form could be another's. */
const SUFFIX_DIGITS = 8;

/**
 * `mcp__<server>__<tool>` when that reads back to exactly this server and tool (both in
 * `[A-Za-z0-9_-]`, the server without `__` or an `_` at either end, 64 characters at most).
 * Otherwise the same with characters outside `[A-Za-z0-9_-]` replaced by `_`, cut to fit, and
 * `_` plus 8 hex digits of a SHA-256 of the server and tool appended: server `a`'s tool `b__c`
 * is `mcp__a__b__c`, server `a__b`'s tool `c` is `mcp__a__b__c_` and a digest.
 */
export function mcpToolName(server: string, tool: string): string {
  const plain = `mcp__${server}__${tool}`;
  if (PLAIN_SERVER.test(server) && PLAIN_TOOL.test(tool) && plain.length <= MAX_TOOL_NAME) {
    return plain;
  }
  const digest = new Bun.CryptoHasher("sha256").update(`${server}\0${tool}`).digest("hex");
  const suffix = `_${digest.slice(0, SUFFIX_DIGITS)}`;
  const base = `mcp__${clean(server)}__${clean(tool)}`;
  return `${base.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
}

function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}
