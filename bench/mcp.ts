/**
 * MCP costs through the compiled `dsh acp`: the time from `session/new` to the first model
 * request that offers a stdio server's tools (the prompt is sent as soon as the session
 * exists), and the added cost of one MCP tool call over a core tool call (`read_file`), each
 * measured from the model step that asks for the call to the request that carries its result.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../tests/support/acp-harness.ts";
import { spawnAcp } from "../tests/support/acp-process.ts";
import { startModelServer, textTurn, toolTurn } from "../tests/support/model-server.ts";
import { stdioServer } from "../tests/mcp/rig.ts";
import { median, report } from "./stats.ts";

const STARTS = 10;
const CALLS = 30;
const m = acp.methods.agent.session;

await using model = await startModelServer();
await using dsh = await spawnAcp({
  baseUrl: model.url,
  env: { DSH_PERMISSION: "danger-full-access" },
});
await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
writeFileSync(join(dsh.cwd, "a.txt"), "hello\n");
const prompt = (sessionId: string) =>
  dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });

const startTimes: number[] = [];
for (let i = 0; i < STARTS; i++) {
  const first = model.requests.length;
  model.script(textTurn("ok"));
  const started = performance.now();
  const { sessionId } = await dsh.agent.request(m.new, {
    cwd: dsh.cwd,
    mcpServers: [stdioServer(`s${i}`)],
  });
  const done = prompt(sessionId);
  await model.received(first);
  startTimes.push(performance.now() - started);
  await done;
  await dsh.agent.request(m.close, { sessionId });
}

const { sessionId } = await dsh.agent.request(m.new, {
  cwd: dsh.cwd,
  mcpServers: [stdioServer("t")],
});
/** Time from the step that asks for `name` to the next request (which carries its result). */
async function callTimes(name: string, args: Record<string, unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const first = model.requests.length;
    model.script(toolTurn([{ id: `c${first}`, name, args }]), textTurn("ok"));
    const done = prompt(sessionId);
    await model.received(first);
    const asked = performance.now();
    await model.received(first + 1);
    times.push(performance.now() - asked);
    await done;
  }
  return times;
}
const core = await callTimes("read_file", { path: "a.txt" });
const mcp = await callTimes("mcp__t__echo", { text: "hi" });

report("session/new → first request offering the server's tools", startTimes);
report("core tool call (read_file), step to next request", core);
report("MCP tool call (stdio echo), step to next request", mcp);
console.log(`added cost of one MCP call: median ${(median(mcp) - median(core)).toFixed(1)} ms`);
