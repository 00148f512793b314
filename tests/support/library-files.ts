/**
 * Helpers of the suites on skills, custom commands and MCP prompts: files written where a
 * session looks for them, and what the model was sent.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "./acp-harness.ts";
import type { AcpProcess } from "./acp-process.ts";
import type { RecordedRequest } from "./model-server.ts";

/** Writes `text` at `path`, making its folders; returns the path. */
export function writeFile(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A SKILL.md with front matter naming it and saying when to use it. */
export function skillFile(name: string, description: string, body = `${name} body`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;
}

/** The content of a request's message of `role`, the `index`-th of them (negative: from the end). */
export function messageContent(
  request: RecordedRequest | undefined,
  role: "system" | "user",
  index = -1,
): unknown {
  const messages = (request?.body.messages ?? []) as { role: string; content: unknown }[];
  return messages.filter((entry) => entry.role === role).at(index)?.content;
}

/** Initializes `dsh` as Zed does and opens a session in its project; `prompt` sends text. */
export async function openSession(dsh: AcpProcess, mcpServers: acp.McpServer[] = []) {
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
  const { sessionId } = await dsh.agent.request(acp.methods.agent.session.new, {
    cwd: dsh.cwd,
    mcpServers,
  });
  const prompt = (text: string) =>
    dsh.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });
  return { sessionId, prompt };
}

type AdvertisedCommand = Extract<
  acp.SessionUpdate,
  { sessionUpdate: "available_commands_update" }
>["availableCommands"][number];

/** The command `name` an update advertises; undefined for another update or another list. */
export function advertised(update: acp.SessionUpdate, name: string): AdvertisedCommand | undefined {
  return update.sessionUpdate === "available_commands_update"
    ? update.availableCommands.find((command) => command.name === name)
    : undefined;
}

/** Whether an update advertises a command `name`. */
export const advertises = (name: string) => (update: acp.SessionUpdate) =>
  advertised(update, name) !== undefined;
