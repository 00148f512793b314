/**
 * Asks a model endpoint, for real, whether it will work: one models list, and where that does
 * not settle it, one chat request of one output token. Used by `dsh doctor`; each finding is
 * a value naming what is wrong, never an exception.
 */
import * as v from "valibot";
import { errorMessage } from "../errors.ts";
import { readServerError } from "./wire.ts";

export type EndpointFinding =
  /** It answers and takes the model; `models` is what it lists (undefined: no list). */
  | { readonly kind: "ok"; readonly models: readonly string[] | undefined }
  | { readonly kind: "unreachable"; readonly reason: string }
  | { readonly kind: "key_rejected"; readonly status: number; readonly detail: string }
  /** Something answered, but not an OpenAI-compatible API (an HTML page, a 404 everywhere). */
  | { readonly kind: "not_an_api"; readonly status: number; readonly what: string }
  | {
      readonly kind: "unknown_model";
      readonly detail: string;
      readonly models: readonly string[] | undefined;
    }
  | { readonly kind: "failed"; readonly status: number; readonly detail: string };

export interface ProbeRequest {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly model: string;
  readonly signal: AbortSignal;
  /** The proxy and CAs of the environment: what the model client uses. */
  readonly fetch?: typeof fetch;
}

const ModelList = v.looseObject({ data: v.array(v.looseObject({ id: v.string() })) });

/** Probes the endpoint; never throws. */
export async function probeEndpoint(request: ProbeRequest): Promise<EndpointFinding> {
  const base = request.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = request.apiKey
    ? { authorization: `Bearer ${request.apiKey}` }
    : {};
  const doFetch = request.fetch ?? fetch;
  const listed = await call(doFetch, `${base}/models`, { headers, signal: request.signal });
  if (listed.kind === "unreachable") return listed;
  if (listed.status === 401 || listed.status === 403) return keyRejected(listed);
  const models = listed.ok ? modelIds(listed.body) : undefined;
  if (models?.includes(request.model)) return { kind: "ok", models };

  // No list, or the model is not on it: one token of a real request settles it.
  const chat = await call(doFetch, `${base}/chat/completions`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({
      model: request.model,
      messages: [{ role: "user", content: "ping" }],
      max_tokens: 1,
      stream: false,
    }),
    signal: request.signal,
  });
  if (chat.kind === "unreachable") return chat;
  if (chat.ok && chat.html)
    return { kind: "not_an_api", status: chat.status, what: "an HTML page" };
  if (chat.ok) return { kind: "ok", models };
  if (chat.status === 401 || chat.status === 403) return keyRejected(chat);
  const server = readServerError(parseJson(chat.body));
  if (server === undefined && (chat.status === 404 || chat.html))
    return { kind: "not_an_api", status: chat.status, what: describeBody(chat) };
  const detail = oneLine(server?.message ?? chat.body);
  if (chat.status === 400 || chat.status === 404 || chat.status === 422) {
    if (/model/i.test(detail) || (models !== undefined && !models.includes(request.model)))
      return { kind: "unknown_model", detail, models };
  }
  return { kind: "failed", status: chat.status, detail };
}

type Answer =
  | { readonly kind: "unreachable"; readonly reason: string }
  | {
      readonly kind: "answered";
      readonly ok: boolean;
      readonly status: number;
      readonly body: string;
      readonly html: boolean;
    };

async function call(
  doFetch: typeof fetch,
  url: string,
  init: RequestInit & { signal: AbortSignal },
): Promise<Answer> {
  try {
    const response = await doFetch(url, init);
    const body = await response.text();
    const type = response.headers.get("content-type") ?? "";
    const html = /html/i.test(type) || /^\s*<(!doctype|html)/i.test(body);
    return { kind: "answered", ok: response.ok, status: response.status, body, html };
  } catch (error) {
    const reason = errorMessage(error).replace(
      /\s*For more information, pass `verbose[^.]*\.?/,
      "",
    );
    return { kind: "unreachable", reason };
  }
}

function keyRejected(answer: Answer & { kind: "answered" }): EndpointFinding {
  const detail = oneLine(readServerError(parseJson(answer.body))?.message ?? answer.body);
  return { kind: "key_rejected", status: answer.status, detail };
}

function modelIds(body: string): string[] | undefined {
  const parsed = v.safeParse(ModelList, parseJson(body));
  return parsed.success ? parsed.output.data.map((model) => model.id) : undefined;
}

function describeBody(answer: Answer & { kind: "answered" }): string {
  return answer.html ? "an HTML page" : answer.body.trim() === "" ? "an empty body" : "no JSON";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
