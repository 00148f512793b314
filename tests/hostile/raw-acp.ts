/**
 * The compiled `dsh acp` behind real pipes, driven byte by byte: no SDK client in between, so a
 * test can write anything (broken framing, odd ids, unanswered or garbage replies) and sees
 * every stdout line. Each line is parsed and schema-checked per method as it arrives; a line
 * that is not JSON-RPC 2.0 or fails the schema lands in `problems`.
 */
import * as v from "valibot";
import { createAcpValidator } from "../support/acp-schema.ts";
import { ensureBinary } from "../support/binary.ts";
import type { HostileProject } from "./project.ts";

/** A JSON-RPC id as the wire allows it. */
export type Id = string | number | null;

/** One message dsh wrote, parsed loosely (the validator judges the details). */
export const Wire = v.looseObject({
  jsonrpc: v.optional(v.unknown()),
  id: v.optional(v.union([v.string(), v.number(), v.null()])),
  method: v.optional(v.string()),
  params: v.optional(v.unknown()),
  result: v.optional(v.unknown()),
  error: v.optional(
    v.looseObject({ code: v.number(), message: v.string(), data: v.optional(v.unknown()) }),
  ),
});
export type Wire = v.InferOutput<typeof Wire>;

/** A request dsh sent to the client (permission, elicitation). */
export interface AgentRequest {
  readonly id: Id;
  readonly method: string;
  readonly params: unknown;
}

export interface RawAcpOptions {
  /** The model endpoint (`DSH_BASE_URL`); an unroutable one when the test never prompts. */
  readonly baseUrl?: string;
  /** Extra environment over the project's. */
  readonly env?: Record<string, string>;
  /**
   * How the client answers a request from dsh: the `result` to send, or `undefined` to leave
   * it unanswered (the test can answer later with `send`). Unanswered by default.
   */
  readonly answer?: (request: AgentRequest) => unknown;
  /** The command line around `dsh acp` (a private mount namespace, a resource limit). */
  readonly wrap?: (argv: readonly string[]) => string[];
}

export interface RawAcp extends AsyncDisposable {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  /** Every parsed stdout message so far, in wire order. */
  readonly messages: readonly Wire[];
  /** Stdout lines that are not JSON-RPC 2.0 or fail the schema for their method. */
  readonly problems: readonly string[];
  /** Writes raw bytes to dsh's stdin (no framing added). Resolves once flushed. */
  write(bytes: string | Uint8Array): Promise<void>;
  /** Writes one message as a JSON line; a request is remembered so its response is checked. */
  send(message: Record<string, unknown>): Promise<void>;
  /** Sends a request and resolves with dsh's response to `id` (result or error). */
  call(method: string, params?: unknown, id?: Id): Promise<Wire>;
  /** Resolves with the first message so far or later that `match` accepts. */
  waitFor(match: (message: Wire) => boolean): Promise<Wire>;
  /** `initialize` as Zed sends it (without terminal cards); resolves once answered. */
  initialize(): Promise<void>;
  /** Opens a session in `cwd` (the project by default) and returns its id. */
  newSession(cwd?: string): Promise<string>;
  /** Sends a text prompt and returns its request id (the response arrives later). */
  prompt(sessionId: string, text: string): Promise<Id>;
  /** `session/update` params of one session, in order. */
  updates(sessionId: string): unknown[];
  /** Closes the client's end of dsh's stdout, as a client that stops reading would. */
  closeStdout(): Promise<void>;
  /** Closes stdin (EOF) and resolves with the exit code. */
  closeStdin(): Promise<number>;
  /** Closes stdin and resolves with the exit code and every stdout problem seen. */
  finish(): Promise<{ code: number; problems: readonly string[] }>;
  /** Everything dsh wrote to stderr, once it has exited. */
  stderr(): Promise<string>;
}

const NULL_ID = "\u0000null-id";
const SessionUpdate = v.object({ sessionId: v.string(), update: v.unknown() });
const NewSession = v.object({ sessionId: v.string() });

let nextId = 1_000;

/** Spawns `dist/dsh acp` in `project`. */
export async function spawnRawAcp(
  project: HostileProject,
  options: RawAcpOptions = {},
): Promise<RawAcp> {
  const binary = await ensureBinary();
  const argv = [binary, "acp"];
  const proc = Bun.spawn(options.wrap?.(argv) ?? argv, {
    cwd: project.cwd,
    env: { ...project.env(options.baseUrl ?? "http://127.0.0.1:9"), ...options.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const validator = createAcpValidator();
  const lines: string[] = [];
  const messages: Wire[] = [];
  const problems: string[] = [];
  const waiters = new Set<{ match: (m: Wire) => boolean; resolve: (m: Wire) => void }>();
  let stdinOpen = true;

  const write = async (bytes: string | Uint8Array) => {
    remember(typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes));
    proc.stdin.write(bytes);
    await proc.stdin.flush();
  };
  /** Lets the validator match responses to raw requests too (the ones that parse). */
  const remember = (text: string) => {
    for (const line of text.split("\n")) {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      const request = v.safeParse(v.looseObject({ id: v.unknown() }), message);
      // A request with a null id is remembered under a key the validator can map back.
      if (request.success)
        validator.inbound(
          request.output.id === null ? { ...request.output, id: NULL_ID } : request.output,
        );
    }
  };
  const send = (message: Record<string, unknown>) => write(`${JSON.stringify(message)}\n`);

  const receive = (line: string) => {
    lines.push(line);
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      problems.push(`stdout line is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const parsed = v.safeParse(Wire, json);
    if (!parsed.success) {
      problems.push(`stdout line is not a JSON-RPC object: ${line.slice(0, 200)}`);
      return;
    }
    const message = parsed.output;
    const nullResult =
      message.id === null && message.method === undefined && message.error === undefined;
    problems.push(...validator.outbound(nullResult ? { ...message, id: NULL_ID } : message));
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (!waiter.match(message)) continue;
      waiters.delete(waiter);
      waiter.resolve(message);
    }
    if (message.method !== undefined && message.id !== undefined && options.answer !== undefined) {
      const result = options.answer({
        id: message.id,
        method: message.method,
        params: message.params,
      });
      if (result !== undefined && stdinOpen)
        void send({ jsonrpc: "2.0", id: message.id, result }).catch(noop);
    }
  };

  const reader = proc.stdout.getReader();
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffer += decoder.decode(read.value, { stream: true });
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        receive(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    }
    if (buffer !== "") problems.push(`stdout ends without a newline: ${buffer.slice(0, 200)}`);
  })();

  const waitFor = (match: (m: Wire) => boolean): Promise<Wire> => {
    const seen = messages.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    const { promise, resolve, reject } = Promise.withResolvers<Wire>();
    waiters.add({ match, resolve });
    void ended.then(() => {
      if (!messages.some(match))
        reject(
          new Error(
            `dsh's stdout ended before the awaited message:\n${lines.join("\n").slice(-2000)}`,
          ),
        );
    });
    return promise;
  };

  const call = async (method: string, params?: unknown, id: Id = nextId++): Promise<Wire> => {
    const response = waitFor((m) => m.method === undefined && m.id === id);
    await send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return response;
  };

  const rawAcp: RawAcp = {
    proc,
    lines,
    messages,
    problems,
    write,
    send,
    call,
    waitFor,
    async initialize() {
      const reply = await call("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: "hostile", version: "0.0.0" },
      });
      if (reply.error !== undefined) throw new Error(`initialize failed: ${reply.error.message}`);
    },
    async newSession(cwd = project.cwd) {
      const reply = await call("session/new", { cwd, mcpServers: [] });
      const parsed = v.safeParse(NewSession, reply.result);
      if (!parsed.success) throw new Error(`session/new failed: ${JSON.stringify(reply.error)}`);
      return parsed.output.sessionId;
    },
    async prompt(sessionId, text) {
      const id = nextId++;
      await send({
        jsonrpc: "2.0",
        id,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text }] },
      });
      return id;
    },
    updates(sessionId) {
      return messages.flatMap((m) => {
        const parsed =
          m.method === "session/update" ? v.safeParse(SessionUpdate, m.params) : undefined;
        return parsed?.success === true && parsed.output.sessionId === sessionId
          ? [parsed.output.update]
          : [];
      });
    },
    async closeStdin() {
      if (stdinOpen) {
        stdinOpen = false;
        try {
          await proc.stdin.end();
        } catch {
          // dsh closed its end first.
        }
      }
      const code = await proc.exited;
      await ended;
      return code;
    },
    async closeStdout() {
      await reader.cancel();
      await ended;
    },
    async finish() {
      const code = await rawAcp.closeStdin();
      return { code, problems };
    },
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      stdinOpen = false;
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
  return rawAcp;
}

/** Whether `message` is the response to request `id`. */
export const responseTo = (id: Id) => (message: Wire) =>
  message.method === undefined && message.id === id;

function noop() {}
