/**
 * An agent process spoken to line by line, for benchmarks that time single requests: write a
 * request, read stdout a line at a time (responses and notifications as they come).
 */

export interface LineAgent {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe" | "ignore">;
  /** The next stdout line; rejects once stdout ends. */
  nextLine(): Promise<string>;
  /** Writes a request (ids count from 0). */
  send(method: string, params: unknown): Promise<void>;
  /** Writes a request and resolves with the next line (for an agent that sends nothing else). */
  request(method: string, params: unknown): Promise<string>;
}

export function startLineAgent(
  command: readonly string[],
  options: {
    readonly cwd: string;
    readonly env: Record<string, string>;
    readonly stderr?: "pipe" | "ignore";
  },
): LineAgent {
  const proc = Bun.spawn([...command], {
    cwd: options.cwd,
    env: options.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: options.stderr ?? "ignore",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let id = 0;
  const nextLine = async (): Promise<string> => {
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("agent closed stdout");
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const send = async (method: string, params: unknown) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: id++, method, params })}\n`);
    await proc.stdin.flush();
  };
  return {
    proc,
    nextLine,
    send,
    async request(method, params) {
      await send(method, params);
      return nextLine();
    },
  };
}
