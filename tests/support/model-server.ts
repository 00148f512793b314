/**
 * A deterministic OpenAI-compatible Chat Completions server for tests: a real `Bun.serve` on
 * 127.0.0.1 and port 0 that answers each chat request with the next scripted turn, streams it
 * as SSE in one of several server dialects, and records every request (and whether the client
 * went away mid-response) for assertions. No randomness: ids, `created` and `model` are fixed.
 */
import * as v from "valibot";
import { createRenderer } from "./model-server-render.ts";

/** One scripted stream event; each becomes zero or more SSE bytes. */
export type StreamEvent =
  | { readonly reasoning: string }
  | { readonly text: string }
  | {
      readonly toolCall: {
        readonly index: number;
        readonly id?: string;
        readonly name?: string;
        readonly args?: string;
      };
    }
  | {
      readonly finish:
        | "stop"
        | "length"
        | "tool_calls"
        | "content_filter"
        | "insufficient_system_resource"
        | null;
    }
  | {
      readonly usage: {
        readonly prompt: number;
        readonly completion: number;
        readonly cacheHit?: number;
        readonly reasoning?: number;
      };
    }
  | { readonly comment: string }
  /** Literal bytes; a `Uint8Array` can end mid-UTF-8 character. */
  | { readonly raw: string | Uint8Array }
  | { readonly error: { readonly message: string; readonly type?: string } }
  /** Pauses the stream until the promise settles (either way). */
  | { readonly until: Promise<unknown> }
  /** For benchmarks only; tests coordinate with `until`. */
  | { readonly delayMs: number }
  /**
   * Ends the response here, without `[DONE]`. Before any byte was sent the connection is reset
   * (the client's fetch fails); after output the body just ends, because Bun drops unflushed
   * bytes on a reset and the test would race it. `"reset"` always resets: put an `until`
   * (resolved once the client saw the output) before it.
   */
  | { readonly disconnect: true | "reset" }
  | { readonly done: true };

export type Dialect = "deepseek" | "ollama" | "vllm" | "llamacpp";

export type Respond =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly json?: unknown }
  | { readonly stream: readonly StreamEvent[]; readonly dialect?: Dialect }
  /** Accepts the request and never answers until the client aborts. */
  | { readonly hang: true };

export interface RecordedRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  /** The parsed JSON body; `{}` when it was not a JSON object. */
  readonly body: Record<string, unknown>;
  /** `performance.now()` in the server's process once the body's last byte was read. */
  readonly bodyReadAt: number;
  /** True once the client went away before the response was complete. */
  readonly aborted: boolean;
}

/** Returns a failure message (answered as a 400) or `undefined` when the request is fine. */
export type Expectation = (request: RecordedRequest) => string | undefined;

export interface ScriptedTurn {
  readonly expect?: Expectation;
  /** The answer, or a function that picks it from the recorded request (benchmarks). */
  readonly respond: Respond | ((request: RecordedRequest) => Respond);
}

export interface ModelServer extends AsyncDisposable {
  /** Base URL without a trailing slash. */
  readonly url: string;
  /** Appends turns to the queue; each chat request consumes one. */
  script(...turns: ScriptedTurn[]): void;
  readonly requests: readonly RecordedRequest[];
  /** Unexpected requests and failed expectations, in order. */
  readonly failures: readonly string[];
  /** Turns not yet consumed. */
  pending(): number;
  /**
   * Resolves when request `n` (0-based) has been aborted by the client. A request cancelled
   * before it was sent never arrives, so cancel after `received(n)` when this must resolve.
   */
  aborted(n: number): Promise<void>;
  /** Resolves with request `n` (0-based) once it has arrived and been recorded. */
  received(n: number): Promise<RecordedRequest>;
}

const MODEL_FALLBACK = "mock-model";
const JsonObject = v.record(v.string(), v.unknown());

interface MutableRecord {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  bodyReadAt: number;
  aborted: boolean;
}

/** The JSON value of `text`; undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Starts a server on 127.0.0.1, port 0; dispose it with `await using`. */
export async function startModelServer(): Promise<ModelServer> {
  const queue: ScriptedTurn[] = [];
  const requests: MutableRecord[] = [];
  const failures: string[] = [];
  const abortWaiters = new Map<number, PromiseWithResolvers<void>>();
  const arrivalWaiters = new Map<number, PromiseWithResolvers<RecordedRequest>>();
  const waiterFor = <T>(waiters: Map<number, PromiseWithResolvers<T>>, n: number) => {
    let waiter = waiters.get(n);
    if (waiter === undefined) {
      waiter = Promise.withResolvers<T>();
      waiters.set(n, waiter);
    }
    return waiter;
  };

  const chat = async (req: Request, path: string): Promise<Response> => {
    const text = await req.text().catch(() => "");
    const bodyReadAt = performance.now();
    const parsed = v.safeParse(JsonObject, parseJson(text));
    const record: MutableRecord = {
      path,
      headers: Object.fromEntries(req.headers),
      body: parsed.success ? parsed.output : {},
      bodyReadAt,
      aborted: false,
    };
    const n = requests.push(record) - 1;
    waiterFor(arrivalWaiters, n).resolve(record);
    const turn = queue.shift();
    if (turn === undefined) {
      failures.push(`request ${n}: mock: unexpected request`);
      return errorResponse(500, "mock: unexpected request", "server_error");
    }
    const problem = turn.expect?.(record);
    if (problem !== undefined) {
      failures.push(`request ${n}: ${problem}`);
      return errorResponse(400, problem, "invalid_request_error");
    }
    const respond = typeof turn.respond === "function" ? turn.respond(record) : turn.respond;
    if ("status" in respond) {
      const json = respond.json ?? { error: { message: `mock: status ${respond.status}` } };
      return Response.json(json, { status: respond.status, headers: respond.headers });
    }
    let finished = false;
    const markAborted = () => {
      if (finished || record.aborted) return;
      record.aborted = true;
      waiterFor(abortWaiters, n).resolve();
    };
    const gone = Promise.withResolvers<void>();
    const onAbort = () => {
      markAborted();
      gone.resolve();
    };
    // The client may have gone while the body was read; a listener added now would never fire.
    if (req.signal.aborted) onAbort();
    else req.signal.addEventListener("abort", onAbort, { once: true });
    const events = "hang" in respond ? [] : respond.stream;
    const render = createRenderer(
      "stream" in respond ? (respond.dialect ?? "deepseek") : "deepseek",
      typeof record.body.model === "string" ? record.body.model : MODEL_FALLBACK,
      n,
    );
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        if ("hang" in respond) return;
        for (const event of events) {
          if (record.aborted) return;
          if ("until" in event) await Promise.race([event.until.catch(() => {}), gone.promise]);
          else if ("delayMs" in event) await Promise.race([Bun.sleep(event.delayMs), gone.promise]);
          else if ("disconnect" in event) {
            finished = true;
            if (sent && event.disconnect === true) controller.close();
            else controller.error();
            return;
          } else {
            const bytes = render(event);
            if (bytes.length > 0) controller.enqueue(bytes);
            sent ||= bytes.length > 0;
          }
        }
        if (record.aborted) return;
        finished = true;
        controller.close();
      },
      cancel: markAborted,
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (
        req.method === "POST" &&
        (path === "/chat/completions" || path === "/v1/chat/completions")
      ) {
        return chat(req, path);
      }
      if (req.method === "GET" && (path === "/models" || path === "/v1/models")) {
        return Response.json({
          object: "list",
          data: [{ id: MODEL_FALLBACK, object: "model", owned_by: "mock" }],
        });
      }
      return errorResponse(404, `mock: no route for ${req.method} ${path}`, "not_found");
    },
  });

  let stopped = false;
  return {
    url: `http://127.0.0.1:${server.port}`,
    script: (...turns) => void queue.push(...turns),
    requests,
    failures,
    pending: () => queue.length,
    aborted: (n) => waiterFor(abortWaiters, n).promise,
    received: (n) => waiterFor(arrivalWaiters, n).promise,
    async [Symbol.asyncDispose]() {
      if (stopped) return;
      stopped = true;
      await server.stop(true);
    },
  };
}

function errorResponse(status: number, message: string, type: string): Response {
  return Response.json({ error: { message, type, param: null, code: null } }, { status });
}

/** A complete answer: optional reasoning, the text, `stop`, usage and `[DONE]`. */
export function textTurn(text: string, opts: { reasoning?: string } = {}): ScriptedTurn {
  return {
    respond: {
      stream: [
        ...(opts.reasoning === undefined ? [] : [{ reasoning: opts.reasoning }]),
        { text },
        { finish: "stop" },
        { usage: { prompt: 10, completion: 5 } },
        { done: true },
      ],
    },
  };
}

/**
 * A tool step: optional reasoning, then each call as an id+name delta followed by its JSON
 * arguments in two fragments, then `tool_calls`, usage and `[DONE]`.
 */
export function toolTurn(
  calls: readonly { id: string; name: string; args: unknown }[],
  opts: { reasoning?: string } = {},
): ScriptedTurn {
  const callEvents = calls.flatMap((call, index): StreamEvent[] => {
    const args = JSON.stringify(call.args);
    const half = Math.ceil(args.length / 2);
    return [
      { toolCall: { index, id: call.id, name: call.name, args: "" } },
      { toolCall: { index, args: args.slice(0, half) } },
      { toolCall: { index, args: args.slice(half) } },
    ];
  });
  return {
    respond: {
      stream: [
        ...(opts.reasoning === undefined ? [] : [{ reasoning: opts.reasoning }]),
        ...callEvents,
        { finish: "tool_calls" },
        { usage: { prompt: 10, completion: 5 } },
        { done: true },
      ],
    },
  };
}

/** Splits `text` into pieces of `size` code points (never splitting a surrogate pair). */
export function chunks(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += Math.max(1, size))
    out.push(points.slice(i, i + size).join(""));
  return out;
}

/** One hand-written SSE `data:` frame, for chunks no dialect produces (a missing index, say). */
export function sseData(value: unknown): StreamEvent {
  return { raw: `data: ${JSON.stringify(value)}\n\n` };
}

const Messages = v.array(v.looseObject({ role: v.string() }));

/**
 * DeepSeek's reasoning round-trip rule, strictly: every assistant message carries a string
 * `reasoning_content`; with `expected`, the k-th assistant message's text must equal
 * `expected[k]` exactly.
 */
export function expectReasoningEcho(expected?: readonly string[]): Expectation {
  return (request) => {
    const messages = v.safeParse(Messages, request.body.messages);
    if (!messages.success) return "mock: `messages` is not an array of messages";
    let k = 0;
    for (const [i, message] of messages.output.entries()) {
      if (message.role !== "assistant") continue;
      const value = message.reasoning_content;
      if (!("reasoning_content" in message)) {
        return `Missing \`reasoning_content\` field in the assistant message at message index ${i}`;
      }
      if (typeof value !== "string")
        return `\`reasoning_content\` at message index ${i} is not a string`;
      const want = expected?.[k];
      if (want !== undefined && value !== want) {
        return `\`reasoning_content\` at message index ${i} is ${JSON.stringify(value)}, expected ${JSON.stringify(want)}`;
      }
      k += 1;
    }
    return undefined;
  };
}

/** Combines expectations; the first failure wins. */
export function expectAll(...checks: readonly Expectation[]): Expectation {
  return (request) => {
    for (const check of checks) {
      const problem = check(request);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}
