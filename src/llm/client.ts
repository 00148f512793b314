/**
 * The model client: one streamed Chat Completions request per step, over `fetch`. Retries
 * (429, 5xx, network, `insufficient_system_resource`) happen here, and only while nothing of
 * the step has been yielded. Iteration never throws: every path ends with `finish` or `error`.
 * The API key goes into the `Authorization` header and nowhere else.
 */
import { sleep } from "../abortable.ts";
import type { Logger } from "../log.ts";
import { describeFetchFailure, failureSummary, httpError, parseRetryAfter } from "./http-errors.ts";
import { type RequestWriter, createRequestWriter } from "./request.ts";
import { backoffMs, DEFAULT_RETRY, isRetryable, type RetryPolicy } from "./retry.ts";
import { needsApiKey } from "./local-endpoint.ts";
import { createSseDecoder } from "./sse.ts";
import { DEFAULT_STREAM_TIMEOUT_MS, createStallWatch, seconds } from "./stall.ts";
import { createStepNormaliser } from "./stream.ts";
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

/** How one try ended when it did not end with `finish`. */
interface Failure {
  readonly error: LlmError;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
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

  /** Removes any copy of the key from text that came from outside (server bodies, causes). */
  const scrub = (error: LlmError): LlmError => {
    const key = apiKey();
    if (!key || !error.message.includes(key)) return error;
    return new LlmError(error.code, error.message.split(key).join("***"), { status: error.status });
  };

  async function* attempt(
    request: ChatRequest,
    body: Uint8Array,
    url: string,
    host: string,
    signal: AbortSignal,
  ): AsyncGenerator<LlmEvent, Failure | undefined> {
    // One try's own: the stream timeout ends this try only, and its end releases the connection.
    const local = new AbortController();
    const linked = AbortSignal.any([signal, local.signal]);
    let idleFired = false;
    const stall = createStallWatch(host, streamTimeoutMs, () => {
      idleFired = true;
      local.abort();
    });
    const touch = () => stall.touch();
    let yielded = false;
    const failed = (error: LlmError, retryAfterMs?: number): Failure => {
      if (signal.aborted) return { error: abortedError(), retryable: false };
      // A stall has used the whole stream timeout already: another try would wait as long again.
      const retryable = !yielded && !idleFired && isRetryable(error.code);
      return { error, retryable, retryAfterMs };
    };
    const transport = (cause: unknown, what: string) =>
      idleFired
        ? new LlmError(
            "network",
            `no data from ${host} for ${seconds(streamTimeoutMs)}; gave up (DSH_STREAM_TIMEOUT)`,
          )
        : new LlmError("network", `${what} ${host}: ${describeFetchFailure(cause)}`, { cause });

    try {
      touch();
      let response: Response;
      try {
        response = yield* stall.wait(
          fetchImpl(url, {
            method: "POST",
            headers: {
              ...(apiKey() ? { authorization: `Bearer ${apiKey()}` } : {}),
              "content-type": "application/json",
              accept: "text/event-stream",
            },
            body,
            signal: linked,
          }),
        );
      } catch (cause) {
        return failed(transport(cause, "cannot reach"));
      }
      touch();
      if (!response.ok || response.body === null) {
        const text = await response.text().catch(() => "");
        const error = httpError(response.status, text, host);
        // The user hears of it through the turn's error; the log keeps the request's shape.
        if (error.code === "bad_request")
          logger.info("model request refused", requestShape(request));
        return failed(error, parseRetryAfter(response.headers.get("retry-after"), Date.now()));
      }

      const normaliser = createStepNormaliser(() => `call_${stepNumber(request)}`);
      if (isJson(response)) {
        // A 200 that is one JSON document, not a stream: some gateways answer errors this way.
        const text = await response.text().catch(() => "");
        const { events } = normaliser.push({ event: "message", data: text });
        const error = events.find((event) => event.type === "error");
        return failed(
          error?.error ?? new LlmError("protocol", `${host} did not answer with an event stream`),
        );
      }
      const decoder = createSseDecoder();
      const reader = response.body.getReader();
      let cause: unknown;
      for (;;) {
        let read: { done: true; value?: undefined } | { done: false; value: Uint8Array };
        try {
          read = yield* stall.wait(reader.read());
        } catch (error) {
          if (signal.aborted || idleFired)
            return failed(transport(error, "lost the connection to"));
          cause = error;
          read = { done: true, value: undefined };
        }
        touch();
        const messages = read.done ? decoder.end() : decoder.push(read.value);
        for (const message of messages) {
          const { events, ended } = normaliser.push(message);
          for (const event of events) {
            if (event.type === "error") return failed(event.error);
            yield event;
            yielded = true;
          }
          if (ended) return undefined;
        }
        if (read.done) break;
      }
      if (!isEventStream(response) && !yielded) {
        return failed(new LlmError("protocol", `${host} did not answer with an event stream`));
      }
      for (const event of normaliser.close()) {
        if (event.type !== "error") {
          yield event;
          continue;
        }
        const error =
          cause === undefined
            ? event.error
            : new LlmError(
                "premature_eof",
                `the connection to ${host} broke mid-stream: ${describeFetchFailure(cause)}`,
                {
                  cause,
                },
              );
        return failed(error);
      }
      return undefined;
    } catch (error) {
      if (signal.aborted) return failed(abortedError());
      const message = `model stream failed: ${describeFetchFailure(error)}`;
      return failed(new LlmError("protocol", message, { cause: error }));
    } finally {
      stall.stop();
      // Releases the connection when the caller stopped early or the step ended at [DONE].
      local.abort();
    }
  }

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
      const failure = yield* attempt(request, writer.body(request), url, host, signal);
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

function abortedError(): LlmError {
  return new LlmError("aborted", "the model request was cancelled");
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

function isJson(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").includes("application/json");
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").includes("text/event-stream");
}

function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}

/** Assistant messages so far: distinct per step of a session, so made-up call ids never clash. */
function stepNumber(request: ChatRequest): number {
  let assistants = 0;
  for (const message of request.messages) if (message.role === "assistant") assistants += 1;
  return assistants + 1;
}

/** What a refused request looked like, without any content: roles, reasoning echo, tool calls. */
function requestShape(request: ChatRequest): Record<string, unknown> {
  const roles = request.messages.map((message) =>
    message.role === "assistant"
      ? `assistant(reasoning:${message.reasoning.length},calls:${message.toolCalls.length})`
      : message.role,
  );
  return {
    model: request.model.id,
    echo: request.model.reasoningEcho,
    tools: request.tools.length,
    roles,
  };
}
