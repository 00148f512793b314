/**
 * A bare ACP client for the benchmarks: spawns an agent over pipes and reads its stdout as a
 * client written in a compiled language would (Zed's serde): split on LF, `JSON.parse` each
 * line, count the `session/update` notifications, match responses to requests by id. It
 * validates nothing past JSON, so what it measures is the agent, not a schema library.
 */
import { type AgentRun, spawnAgent } from "./acp-agent.ts";

export type LineClientRun = Pick<AgentRun, "command" | "cwd" | "env">;

export interface LineClient {
  readonly pid: number;
  /** `session/update` notifications read so far. */
  readonly updates: number;
  /** Sends a request; resolves with its result, rejects with its error. */
  request(method: string, params: unknown): Promise<unknown>;
}

const LF = 0x0a;

/** Runs `work` against a fresh agent after `initialize`; closes stdin and awaits the exit. */
export async function withLineClient<T>(
  run: LineClientRun,
  work: (client: LineClient) => Promise<T>,
): Promise<T> {
  const proc = spawnAgent(run);
  const waiting = new Map<number, PromiseWithResolvers<unknown>>();
  let updates = 0;
  let nextId = 0;
  const take = (line: string) => {
    const message = JSON.parse(line) as {
      id?: number;
      method?: string;
      result?: unknown;
      error?: { message: string };
    };
    if (message.method === "session/update") updates++;
    else if (message.id !== undefined && message.method === undefined) {
      const waiter = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    }
  };
  const reading = (async () => {
    const decoder = new TextDecoder();
    let carry = "";
    for await (const chunk of proc.stdout) {
      let start = 0;
      for (let nl = chunk.indexOf(LF); nl >= 0; nl = chunk.indexOf(LF, start)) {
        take(carry + decoder.decode(chunk.subarray(start, nl)));
        carry = "";
        start = nl + 1;
      }
      carry += decoder.decode(chunk.subarray(start), { stream: true });
    }
    for (const waiter of waiting.values()) waiter.reject(new Error("the agent closed stdout"));
  })();
  const client: LineClient = {
    pid: proc.pid,
    get updates() {
      return updates;
    },
    request(method, params) {
      const id = nextId++;
      const waiter = Promise.withResolvers<unknown>();
      waiting.set(id, waiter);
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      void proc.stdin.flush();
      return waiter.promise;
    },
  };
  try {
    await client.request("initialize", { protocolVersion: 1 });
    return await work(client);
  } finally {
    proc.stdin.end();
    await proc.exited;
    await reading;
  }
}
