/**
 * An ACP agent process for the benchmarks: spawned over pipes, initialized, and driven by the
 * SDK's client app for as long as `work` runs; its stdin is then closed and its exit awaited.
 */
import * as acp from "@agentclientprotocol/sdk";

export interface AgentRun {
  /** The agent's argv. */
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Each `session/update` notification, as it arrives. */
  readonly onUpdate?: (params: acp.SessionNotification) => void;
}

/** Spawns the agent with its stdin and stdout on pipes and its stderr dropped. */
export function spawnAgent(run: Pick<AgentRun, "command" | "cwd" | "env">) {
  return Bun.spawn([...run.command], {
    cwd: run.cwd,
    env: run.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
}

/** Runs `work` against a fresh, initialized agent; resolves with what it returns. */
export async function withAcpAgent<T>(
  run: AgentRun,
  work: (agent: acp.ClientContext, pid: number) => Promise<T>,
): Promise<T> {
  const proc = spawnAgent(run);
  const output = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });
  let result: { value: T } | undefined;
  await acp
    .client({ name: "bench" })
    .onNotification(acp.methods.client.session.update, ({ params }) => run.onUpdate?.(params))
    .connectWith(acp.ndJsonStream(output, proc.stdout), async (agent) => {
      await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      result = { value: await work(agent, proc.pid) };
    });
  proc.stdin.end();
  await proc.exited;
  if (result === undefined) throw new Error(`${run.command[0]} ended before the benchmark did`);
  return result.value;
}

/** The environment a benchmark's dsh runs in: a temp home, config and state, one endpoint. */
export function benchEnv(root: string, baseUrl: string, extra: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH ?? "",
    HOME: root,
    DSH_HOME: `${root}/home`,
    DSH_CONFIG: `${root}/config.toml`,
    DSH_BASE_URL: baseUrl,
    DSH_API_KEY: "bench",
    ...extra,
  };
}
