/**
 * The model client: one streamed Chat Completions request per step, over `fetch`. Retries
 * (429, 5xx, network, `insufficient_system_resource`) happen here, and only while nothing of
 * the step has been yielded. Iteration never throws: every path ends with `finish` or `error`.
 * The API key goes into the `Authorization` header and nowhere else.
 */
import { sleep } from "../abortable.ts";
import type { Logger } from "../log.ts";
import { failureSummary } from "./http-errors.ts";
import { type RequestWriter, createRequestWriter } from "./request.ts";
import { backoffMs, DEFAULT_RETRY, type RetryPolicy } from "./retry.ts";
import { needsApiKey } from "./local-endpoint.ts";
import { abortedError, createStepTry } from "./step-try.ts";
import { DEFAULT_STREAM_TIMEOUT_MS, seconds } from "./stall.ts";
import { type ChatRequest, LlmError, type LlmEvent, type ModelClient } from "./types.ts";

export interface ModelClientDeps {
  /** The connection's base URL; a model's own `baseUrl` wins. A trailing slash is ignored. */
  readonly baseUrl: string;
  /**
   * Undefined or empty: every request to a remote endpoint ends with a `missing_api_key` error
   * (never at construction); one on the loopback interface is sent without a key.
   */
  readonly apiKey: string | undefined | (() => string | undefined);
  readonly logger: Logger;
  readonly fetch?: typeof fetch;
  readonly retry?: Partial<RetryPolicy>;
  /**
   * The stream timeout: no byte (headers, data, keep-alive comments) for this long ends the step
   * with a `network` error, without a retry, so it bounds the whole wait on a silent endpoint.
   */
  readonly streamTimeoutMs?: number;
}

/**
 * Creates a client; it holds no connection of its own, so it needs no disposal. Its own requests
 * share one request writer; each `conversation()` has another.
 */
export function createModelClient(deps: ModelClientDeps): ModelClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...deps.retry };
  const streamTimeoutMs = deps.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  const fetchImpl = deps.fetch ?? fetch;
  const { logger } = deps;
  // Read per request: `dsh login` may store a key while `dsh acp` runs.
  const apiKey = () => (typeof deps.apiKey === "function" ? deps.apiKey() : deps.apiKey);
  const attempt = createStepTry({ fetch: fetchImpl, apiKey, streamTimeoutMs, logger });

  /** Removes any copy of the key from text that came from outside (server bodies, causes). */
  const scrub = (error: LlmError): LlmError => {
    const key = apiKey();
    if (!key || !error.message.includes(key)) return error;
    return new LlmError(error.code, error.message.split(key).join("***"), { status: error.status });
  };

  async function* stream(
    writer: RequestWriter,
    request: ChatRequest,
    signal: AbortSignal,
  ): AsyncGenerator<LlmEvent> {
    const base = (request.model.baseUrl ?? deps.baseUrl).replace(/\/+$/, "");
    if (!apiKey() && needsApiKey(base)) {
      yield {
        type: "error",
        error: new LlmError(
          "missing_api_key",
          "no API key: run `dsh login`, or set DSH_API_KEY (or DEEPSEEK_API_KEY) to the key of your model provider",
        ),
      };
      return;
    }
    const url = `${base}/chat/completions`;
    const host = hostOf(base);
    for (let tries = 1; ; tries += 1) {
      if (signal.aborted) {
        yield { type: "error", error: abortedError() };
        return;
      }
      const messages = request.messages.length;
      logger.debug("model request", { host, model: request.model.id, try: tries, messages });
      const step = { request, body: writer.body(request), url, host };
      const failure = yield* attempt(step, signal);
      if (failure === undefined) return;
      if (!failure.retryable || tries >= policy.attempts) {
        yield { type: "error", error: scrub(failure.error) };
        return;
      }
      const waitMs = backoffMs(policy, tries, failure.retryAfterMs);
      const { code, status } = failure.error;
      // A diagnostic: what the user sees of a retry is the notice, shown as a status line.
      logger.info("model request failed; retrying", { code, status, try: tries, waitMs });
      yield retryNotice(scrub(failure.error), host, waitMs, tries + 1, policy.attempts);
      if (!(await sleep(waitMs, signal))) {
        yield { type: "error", error: abortedError() };
        return;
      }
    }
  }

  const clientWith = (writer: RequestWriter): ModelClient => ({
    stream: (request, signal) => stream(writer, request, signal),
    conversation: () => clientWith(createRequestWriter()),
  });
  return clientWith(createRequestWriter());
}

/** What the user sees while a failed try waits for the next one. */
function retryNotice(
  error: LlmError,
  host: string,
  waitMs: number,
  next: number,
  attempts: number,
): LlmEvent {
  return {
    type: "notice",
    severity: "warning",
    title: `${failureSummary(error, host)}, retrying in ${seconds(waitMs)} (try ${next} of ${attempts})`,
    // The title names the failure; the server's own words, when it gave some, are the rest.
    description: typeof error.data.detail === "string" ? error.data.detail : error.message,
  };
}

function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}
