/**
 * One try of a model step: the request, then the response's events as they arrive. A try that
 * does not end with `finish` returns its failure and whether another try may follow; the
 * stream timeout ends this try only, and its end releases the connection.
 */
import type { Logger } from "../log.ts";
import { describeFetchFailure, httpError, parseRetryAfter } from "./http-errors.ts";
import { isRetryable } from "./retry.ts";
import { createSseDecoder } from "./sse.ts";
import { type StallWatch, createStallWatch, seconds } from "./stall.ts";
import { type StepNormaliser, createStepNormaliser } from "./stream.ts";
import { type ChatRequest, LlmError, type LlmEvent } from "./types.ts";

export interface StepTryDeps {
  readonly fetch: typeof fetch;
  readonly apiKey: () => string | undefined;
  readonly streamTimeoutMs: number;
  readonly logger: Logger;
}

/** What one try sends. */
export interface StepRequest {
  readonly request: ChatRequest;
  readonly body: Uint8Array;
  readonly url: string;
  readonly host: string;
}

/** How one try ended when it did not end with `finish`. */
export interface Failure {
  readonly error: LlmError;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
}

type StepTry = (
  step: StepRequest,
  signal: AbortSignal,
) => AsyncGenerator<LlmEvent, Failure | undefined>;

/** A try's own state, and how it words its failures. */
interface TryState {
  readonly host: string;
  readonly signal: AbortSignal;
  readonly stall: StallWatch;
  /** Whether any event went out: after that, no retry. */
  yielded: boolean;
  /** Whether the stream timeout ended the try. */
  idleFired: boolean;
  failed(error: LlmError, retryAfterMs?: number): Failure;
  transport(cause: unknown, what: string): LlmError;
}

export function createStepTry(deps: StepTryDeps): StepTry {
  const { apiKey, streamTimeoutMs, logger } = deps;

  return async function* attempt(step, signal) {
    const { request, host } = step;
    const local = new AbortController();
    const linked = AbortSignal.any([signal, local.signal]);
    const state: TryState = {
      host,
      signal,
      stall: createStallWatch(host, streamTimeoutMs, () => {
        state.idleFired = true;
        local.abort();
      }),
      yielded: false,
      idleFired: false,
      failed(error, retryAfterMs) {
        if (signal.aborted) return { error: abortedError(), retryable: false };
        // A stall has used the whole stream timeout already: another try would wait as long again.
        const retryable = !state.yielded && !state.idleFired && isRetryable(error.code);
        return { error, retryable, retryAfterMs };
      },
      transport: (cause, what) =>
        state.idleFired
          ? new LlmError(
              "network",
              `no data from ${host} for ${seconds(streamTimeoutMs)}; gave up (DSH_STREAM_TIMEOUT)`,
            )
          : new LlmError("network", `${what} ${host}: ${describeFetchFailure(cause)}`, { cause }),
    };
    const { stall, failed } = state;

    try {
      stall.touch();
      let response: Response;
      try {
        response = yield* stall.wait(
          deps.fetch(step.url, {
            method: "POST",
            headers: {
              ...(apiKey() ? { authorization: `Bearer ${apiKey()}` } : {}),
              "content-type": "application/json",
              accept: "text/event-stream",
            },
            body: step.body,
            signal: linked,
          }),
        );
      } catch (cause) {
        return failed(state.transport(cause, "cannot reach"));
      }
      stall.touch();
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
      return yield* readEvents(state, response, response.body, normaliser);
    } catch (error) {
      if (signal.aborted) return failed(abortedError());
      const message = `model stream failed: ${describeFetchFailure(error)}`;
      return failed(new LlmError("protocol", message, { cause: error }));
    } finally {
      stall.stop();
      // Releases the connection when the caller stopped early or the step ended at [DONE].
      local.abort();
    }
  };
}

/** The events of a streamed response, until `[DONE]`, its end, or a failure. */
async function* readEvents(
  state: TryState,
  response: Response,
  body: NonNullable<Response["body"]>,
  normaliser: StepNormaliser,
): AsyncGenerator<LlmEvent, Failure | undefined> {
  const { stall, failed, host } = state;
  const decoder = createSseDecoder();
  const reader = body.getReader();
  let cause: unknown;
  for (;;) {
    let read: { done: true; value?: undefined } | { done: false; value: Uint8Array };
    try {
      read = yield* stall.wait(reader.read());
    } catch (error) {
      if (state.signal.aborted || state.idleFired)
        return failed(state.transport(error, "lost the connection to"));
      cause = error;
      read = { done: true, value: undefined };
    }
    stall.touch();
    const messages = read.done ? decoder.end() : decoder.push(read.value);
    for (const message of messages) {
      const { events, ended } = normaliser.push(message);
      for (const event of events) {
        if (event.type === "error") return failed(event.error);
        yield event;
        state.yielded = true;
      }
      if (ended) return undefined;
    }
    if (read.done) break;
  }
  if (!isEventStream(response) && !state.yielded) {
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
            { cause },
          );
    return failed(error);
  }
  return undefined;
}

export function abortedError(): LlmError {
  return new LlmError("aborted", "the model request was cancelled");
}

function isJson(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").includes("application/json");
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").includes("text/event-stream");
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
