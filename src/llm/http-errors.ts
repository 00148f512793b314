/**
 * Maps a failed HTTP answer of a model server to a typed `LlmError`, with a message a user can
 * act on. The server's own explanation is kept (DeepSeek's 400 text names the broken field),
 * with any copy of the API key removed.
 */
import { errorCode } from "../error-code.ts";
import { LlmError, type LlmErrorCode } from "./types.ts";
import { readServerError, type ServerError } from "./wire.ts";

/** The most of an error body kept in a message. */
const MAX_DETAIL = 500;

/**
 * @param status the HTTP status (>= 400)
 * @param bodyText the response body as text, possibly empty or not JSON
 * @param host the server's host, for messages
 * @returns the error; never throws
 */
export function httpError(status: number, bodyText: string, host: string): LlmError {
  const page = isWebPage(bodyText);
  // A web page is no server's explanation: it says only that this is not the API.
  const detail = page ? "" : serverDetail(bodyText);
  // A 404 that is not about a model (OpenAI's answer to an unknown one) means a wrong address.
  const notAnApi = page || (status === 404 && !/model/i.test(detail));
  const code = notAnApi
    ? "not_an_api"
    : isContextLengthError(status, bodyText)
      ? "context_length"
      : statusCode(status);
  const suffix = detail === "" ? "" : `: ${detail}`;
  const message = (() => {
    switch (code) {
      case "not_an_api":
        return page
          ? `${host} answered HTTP ${status} with a web page, not an OpenAI-compatible API`
          : `${host} answered HTTP ${status}${suffix}: no chat completions API at this address`;
      case "auth":
        return `${host} rejected the API key (HTTP ${status})${suffix}`;
      case "insufficient_balance":
        return `${host} reports an insufficient account balance (HTTP 402)${suffix}; top up the account to continue`;
      case "rate_limit":
        return `${host} is rate limiting requests (HTTP 429)${suffix}`;
      case "overloaded":
        return `${host} is overloaded (HTTP 503)${suffix}`;
      case "server":
        return `${host} failed (HTTP ${status})${suffix}`;
      case "context_length":
        return `the conversation is too long for the model's context window (HTTP ${status})${suffix}`;
      default:
        return `${host} refused the request (HTTP ${status})${suffix}`;
    }
  })();
  return new LlmError(code, message, { status, ...(detail === "" ? {} : { data: { detail } }) });
}

/** An HTML page (a proxy's or a web server's 404) where an API answer belongs. */
function isWebPage(bodyText: string): boolean {
  return /^\s*<(!doctype\s+html|html[\s>])/i.test(bodyText);
}

/**
 * How servers say a prompt does not fit: DeepSeek's and OpenAI's "maximum context length is N
 * tokens", OpenAI's `context_length_exceeded` code, vLLM's "longer than the maximum model
 * length", llama.cpp's "exceeds the available context size", Anthropic-style "prompt is too
 * long", and gateways' "too many tokens" / "reduce the length of the messages".
 */
const CONTEXT_LENGTH_PATTERNS: readonly RegExp[] = [
  /context[ _-]?length/i,
  /context[ _-]?window/i,
  /context size/i,
  /maximum (model|context|input|prompt) length/i,
  /prompt is too long/i,
  /input is too long/i,
  /too many (input )?tokens/i,
  /reduce the length of the (messages|prompt|input)/i,
  /tokens? (limit|count) exceeded/i,
  /exceeds? the (model's |maximum )?(token|context)/i,
];

/**
 * Whether a failed answer says the prompt is longer than the model's window. Only 400, 413
 * and 422 qualify: a 5xx or 429 that mentions tokens is about load, not about this prompt.
 */
export function isContextLengthError(status: number, bodyText: string): boolean {
  if (status !== 400 && status !== 413 && status !== 422) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const server = readServerError(parsed);
  return saysContextLength(server ?? { message: bodyText });
}

/** Whether a server's error (an HTTP body's or one inside a stream) says the prompt is too long. */
export function saysContextLength(error: ServerError): boolean {
  if (error.code === "context_length_exceeded") return true;
  return CONTEXT_LENGTH_PATTERNS.some((pattern) => pattern.test(error.message));
}

function statusCode(status: number): LlmErrorCode {
  if (status === 401 || status === 403) return "auth";
  if (status === 402) return "insufficient_balance";
  if (status === 429) return "rate_limit";
  if (status === 503) return "overloaded";
  if (status >= 500 || status === 408) return "server";
  return "bad_request";
}

function serverDetail(bodyText: string): string {
  const text = bodyText.trim();
  if (text === "") return "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const message = readServerError(parsed)?.message ?? text;
  const oneLine = message.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL)}…` : oneLine;
}

/** The most a `Retry-After` header may make dsh wait. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Reads `Retry-After` (delta seconds or an HTTP date), capped at `MAX_RETRY_AFTER_MS`.
 * @returns milliseconds, or `undefined` when absent or unreadable
 */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const value = header.trim();
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** What a failed connection means, by the error's code, in words a user can act on. */
const CONNECTION_FAILURES: Readonly<Record<string, string>> = {
  ECONNRESET: "the connection was reset by the server or the network",
  ECONNREFUSED: "the connection was refused (is the server running, and is the URL right?)",
  ENOTFOUND: "the host name was not found (check the URL and your DNS)",
  EAI_AGAIN: "the host name could not be resolved right now (check your network)",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable from this network",
  ENETUNREACH: "the network is unreachable",
  EPIPE: "the connection was closed while the request was being sent",
  ConnectionClosed: "the server closed the connection unexpectedly",
  ConnectionRefused: "the connection was refused (is the server running, and is the URL right?)",
  FailedToOpenSocket: "a connection could not be opened",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate could not be verified",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate does not match its host name",
};

/**
 * A transport failure of `fetch` in the user's terms: what went wrong with the connection,
 * never the runtime's advice to its own developers.
 */
export function describeFetchFailure(cause: unknown): string {
  const known = CONNECTION_FAILURES[errorCode(cause) ?? ""];
  if (known !== undefined) return known;
  const message = cause instanceof Error ? cause.message : String(cause);
  // Bun's fetch errors end with a hint for developers ("pass `verbose: true` ..."); drop it.
  const plain = message.replace(/\.?\s*For more information, pass `verbose: true`.*$/s, "").trim();
  return plain === "" ? "the connection failed" : plain;
}

/** A failed try in a few words, for a status line ("rate limited by api.deepseek.com"). */
export function failureSummary(error: LlmError, host: string): string {
  switch (error.code) {
    case "rate_limit":
      return `Rate limited by ${host}`;
    case "overloaded":
      return `${host} is overloaded`;
    case "server":
      return `${host} failed${error.status === undefined ? "" : ` (HTTP ${error.status})`}`;
    case "network":
      return `Cannot reach ${host}`;
    case "premature_eof":
      return `The stream from ${host} broke off`;
    default:
      return `The request to ${host} failed`;
  }
}
