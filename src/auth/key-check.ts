/**
 * One cheap request that tells whether an endpoint takes a key: `GET /models` (DeepSeek and
 * most OpenAI-compatible servers have it), else a one-token chat request. Outcomes are values.
 */
import * as v from "valibot";
import { errorMessage } from "../errors.ts";

export type KeyCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly reason: "rejected" | "unreachable" | "unexpected";
      readonly message: string;
    };

export interface KeyCheckOptions {
  readonly baseUrl: string;
  readonly key: string;
  /** Used for the chat fallback when the endpoint has no models list. */
  readonly model: string;
  readonly signal: AbortSignal;
  readonly fetch?: typeof fetch;
}

/** Checks `key` against `baseUrl`. */
export async function checkKey(options: KeyCheckOptions): Promise<KeyCheck> {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const headers = { authorization: `Bearer ${options.key}`, "content-type": "application/json" };
  const host = hostOf(base);
  try {
    let response = await doFetch(`${base}/models`, { headers, signal: options.signal });
    if (response.status === 404 || response.status === 405) {
      response = await doFetch(`${base}/chat/completions`, {
        method: "POST",
        headers,
        signal: options.signal,
        body: JSON.stringify({
          model: options.model,
          max_tokens: 1,
          messages: [{ role: "user", content: "hi" }],
        }),
      });
    }
    if (response.ok) return { ok: true };
    const detail = serverMessage(await response.text().catch(() => ""));
    if (response.status === 401 || response.status === 403) {
      return {
        ok: false,
        reason: "rejected",
        message: `${host} rejected the key (${response.status}${detail})`,
      };
    }
    return {
      ok: false,
      reason: "unexpected",
      message: `${host} answered ${response.status}${detail}`,
    };
  } catch (error) {
    return {
      ok: false,
      reason: "unreachable",
      message: `cannot reach ${host}: ${errorMessage(error)}`,
    };
  }
}

const ErrorBody = v.object({ error: v.object({ message: v.string() }) });

function serverMessage(body: string): string {
  try {
    const parsed = v.safeParse(ErrorBody, JSON.parse(body));
    if (parsed.success) return `: ${parsed.output.error.message.slice(0, 200)}`;
  } catch {
    // Not JSON: say nothing more than the status.
  }
  return "";
}

function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}
