/**
 * Judging one line from the client before the SDK sees it. A line is bounded in nesting depth
 * before anything recursive touches it, parsed, and sorted into a message the SDK may handle or
 * the error reply dsh sends itself. An error reply never echoes what the client sent: it carries
 * the request's id when one can be read, else `null`, and a short message.
 */
import type * as acp from "@agentclientprotocol/sdk";

/** The deepest nesting of arrays and objects a message may have; ACP needs far fewer levels. */
const MAX_MESSAGE_DEPTH = 128;

/** The longest string id dsh answers to: a reply must not grow with what the client sent. */
const MAX_ID_CHARS = 1024;

/** A line nested too deep is parsed for its id only up to this length (parsing depth is slow). */
const MAX_ID_LOOKUP_CHARS = 1024 * 1024;

/** A JSON-RPC id as the wire allows it. */
export type JsonRpcId = string | number | null;

/** What to do with one line: hand a message to the SDK, answer it ourselves, or nothing. */
export type Inbound =
  | { readonly type: "message"; readonly message: acp.AnyMessage }
  | { readonly type: "reply"; readonly reply: ErrorReply }
  | { readonly type: "blank" };

/** A JSON-RPC error response that dsh writes on its own. */
export interface ErrorReply {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly error: { readonly code: number; readonly message: string };
}

/** Builds an error reply. */
export function errorReply(id: JsonRpcId, code: number, message: string): ErrorReply {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** The reply to a line dsh stopped buffering at `limit` bytes. */
export function tooLargeReply(limit: number): ErrorReply {
  return errorReply(null, -32600, `Invalid request: a message is larger than ${limit} bytes`);
}

/**
 * Sorts one line (its LF and CR removed). Never throws, whatever the text.
 * @param text the line, decoded
 * @returns the message to hand on, the reply to send, or `blank` for a line of whitespace
 */
export function judgeLine(text: string): Inbound {
  const line = text.trim();
  if (line === "") return { type: "blank" };
  // Checked before anything recursive (schemas, logging, an echo) meets the value, and before
  // parsing, which takes seconds for a line millions of levels deep.
  if (nestingDepth(line) > MAX_MESSAGE_DEPTH) return tooDeep(line);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return reply(null, -32700, "Parse error");
  }
  if (Array.isArray(value)) {
    return reply(null, -32600, "Invalid request: JSON-RPC batches are not supported");
  }
  if (!isRecord(value)) return reply(null, -32600, "Invalid request: not a JSON-RPC object");
  return judgeObject(value);
}

/** The refusal of a line nested too deep; a short one is parsed to answer its request's id. */
function tooDeep(line: string): Inbound {
  let id: JsonRpcId = null;
  if (line.length <= MAX_ID_LOOKUP_CHARS) {
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value) && isId(value.id) && typeof value.method === "string") id = value.id;
    } catch {
      return reply(null, -32700, "Parse error");
    }
  }
  return reply(id, -32600, `Invalid request: nested deeper than ${MAX_MESSAGE_DEPTH} levels`);
}

function judgeObject(value: Record<string, unknown>): Inbound {
  const invalid = (why: string) => reply(null, -32600, `Invalid request: ${why}`);
  if (value.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0"');
  const hasId = Object.hasOwn(value, "id");
  if (hasId && !isId(value.id)) {
    return invalid(`"id" must be a number, null or a string of at most ${MAX_ID_CHARS} characters`);
  }
  const id = hasId && isId(value.id) ? value.id : undefined;

  if (Object.hasOwn(value, "method")) {
    if (typeof value.method !== "string") return invalid('"method" must be a string');
    const message = { jsonrpc: "2.0" as const, method: value.method, params: value.params };
    return {
      type: "message",
      message: id === undefined ? message : { ...message, id },
    };
  }
  if (id === undefined) return invalid('neither "method" nor "id"');
  return { type: "message", message: responseOf(value, id) };
}

/**
 * A response as the SDK may take it. A malformed one (both or neither of `result` and `error`,
 * or an error without a code and message) still settles the request it answers, as an error.
 */
function responseOf(value: Record<string, unknown>, id: JsonRpcId): acp.AnyMessage {
  const hasResult = Object.hasOwn(value, "result");
  const error = value.error;
  if (hasResult && error === undefined) return { jsonrpc: "2.0", id, result: value.result };
  if (!hasResult && isRecord(error) && Number.isInteger(error.code)) {
    const message = typeof error.message === "string" ? error.message : "";
    const code = Number(error.code);
    return error.data === undefined
      ? { jsonrpc: "2.0", id, error: { code, message } }
      : { jsonrpc: "2.0", id, error: { code, message, data: error.data } };
  }
  return {
    jsonrpc: "2.0",
    id,
    error: { code: -32603, message: "the client sent a malformed response" },
  };
}

/**
 * The deepest nesting of `[` and `{` outside strings, read without recursion. Stops counting
 * once past the limit, so a hostile line costs one scan.
 */
function nestingDepth(line: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > MAX_MESSAGE_DEPTH) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

function reply(id: JsonRpcId, code: number, message: string): Inbound {
  return { type: "reply", reply: errorReply(id, code, message) };
}

function isId(value: unknown): value is JsonRpcId {
  return (
    value === null ||
    (typeof value === "string" && value.length <= MAX_ID_CHARS) ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
