/**
 * `session/load` of a long session through the compiled binary: open, validate and replay a
 * log of many tool-using turns, measured from the request to its response (every replayed
 * update is written before the response).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { silentLogger } from "../src/log.ts";
import { createSessionStore } from "../src/session/store.ts";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { report, timeRuns } from "./stats.ts";

const TURNS = 200;
const RUNS = 10;
const loadMs: number[] = [];
await ensureBinary();
const root = mkdtempSync(join(tmpdir(), "dsh-bench-replay-"));
const cwd = join(root, "project");
const home = join(root, "home");
mkdirSync(cwd);
writeFileSync(join(root, "config.toml"), "");

const store = createSessionStore({ home, logger: silentLogger });
const sessionId = await (async () => {
  await using log = await store.create({ cwd });
  const file = join(cwd, "src.ts");
  const body = "export const value = 1;\n".repeat(40);
  for (let i = 0; i < TURNS; i++) {
    const turnId = `t${i}`;
    log.append({ type: "turn_start", turnId });
    log.append({ type: "user_message", turnId, content: [{ type: "text", text: `change ${i}` }] });
    log.append({ type: "prompt_submit", turnId });
    log.append({ type: "reasoning", turnId, step: 1, text: "I will edit the file. ".repeat(20) });
    const intent = {
      type: "diff" as const,
      title: "Edit src.ts",
      path: file,
      oldText: body,
      newText: `${body}// ${i}\n`,
    };
    log.append({
      type: "tool_call",
      turnId,
      step: 1,
      callId: `c${i}`,
      name: "edit_file",
      arguments: "{}",
      intent,
    });
    log.append({
      type: "tool_result",
      turnId,
      callId: `c${i}`,
      isError: false,
      output: "edited",
      intent,
    });
    log.append({ type: "assistant_text", turnId, step: 2, text: "Done. ".repeat(50) });
    log.append({ type: "turn_end", turnId, reason: "end_turn" });
  }
  return log.header.id;
})();
const bytes = statSync(join(home, "sessions", `${sessionId}.jsonl`)).size;

const env = {
  PATH: process.env.PATH ?? "",
  HOME: root,
  DSH_HOME: home,
  DSH_CONFIG: join(root, "config.toml"),
  DSH_BASE_URL: "http://127.0.0.1:9",
  DSH_API_KEY: "bench",
};

try {
  let updates = 0;
  const times = await timeRuns(RUNS, 1, async () => {
    const proc = Bun.spawn([binaryPath, "acp"], {
      cwd,
      env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    const output = new WritableStream<Uint8Array>({
      async write(chunk) {
        proc.stdin.write(chunk);
        await proc.stdin.flush();
      },
    });
    updates = 0;
    await acp
      .client({ name: "bench" })
      .onNotification(acp.methods.client.session.update, () => {
        updates++;
      })
      .connectWith(acp.ndJsonStream(output, proc.stdout), async (agent) => {
        await agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
        });
        const start = performance.now();
        await agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
        loadMs.push(performance.now() - start);
      });
    proc.stdin.end();
    await proc.exited;
  });
  report(
    `spawn + initialize + load (${TURNS} turns, ${(bytes / 1024 / 1024).toFixed(1)} MB log)`,
    times,
  );
  report(`session/load alone (${updates} updates replayed)`, loadMs.slice(-RUNS));
} finally {
  rmSync(root, { recursive: true, force: true });
}
