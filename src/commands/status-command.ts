/** `/status`: what the session runs with and how full its context is, answered without a model request. */
import { presetOf } from "../permission/knobs.ts";
import type { SandboxStatus } from "../exec/types.ts";
import type { BackgroundCommand } from "../agent/types.ts";
import { takesEffort } from "../settings/table.ts";
import type { CommandSession, SlashCommand } from "./types.ts";

export const statusCommand: SlashCommand = {
  name: "status",
  description: "Model, effort, permission, sandbox, context use, cost, MCP servers and saved rules",
  async run(_args, session) {
    const { handle } = session;
    const settings = handle.settings();
    const status = handle.status();
    const model = session.models().find((m) => m.id === settings.model);
    const share = status.contextWindow > 0 ? (status.contextUsed / status.contextWindow) * 100 : 0;
    const lines = [
      `model: ${settings.model}${model === undefined || model.name === model.id ? "" : ` (${model.name})`}`,
      `effort: ${takesEffort(model?.thinking) ? settings.effort : "n/a (this model has no effort setting)"}`,
      `permission: ${presetOf(settings.knobs)}`,
      ...directoriesLines(session),
      `sandbox: ${await sandboxLine(session, settings.knobs.sandboxMode)}`,
      `context: ${count(status.contextUsed)} of ${count(status.contextWindow)} tokens (${share.toFixed(1)}%)`,
      `cost: $${status.costUsd.toFixed(4)}`,
      `MCP servers: ${mcpLine(session)}`,
      `background commands: ${backgroundLine(status.background ?? [])}`,
      ...rulesLines(session),
      `network: ${await networkLine(session, settings.knobs.sandboxMode)}`,
    ];
    return { type: "reply", text: lines.map((line) => `- ${line}`).join("\n") };
  },
};

async function sandboxLine(session: CommandSession, mode: string): Promise<string> {
  if (mode === "danger-full-access") return "off (full access)";
  if (session.sandbox === undefined) return "unknown";
  const status: SandboxStatus = await session.sandbox();
  return status.ok
    ? status.backend
    : `${status.backend}, not working: ${status.reason ?? "unknown reason"}`;
}

/** The session's MCP servers and their state: `github (ready, 12 tools), docs (failed: why)`. */
function mcpLine(session: CommandSession): string {
  const servers = session.handle.mcpServers();
  if (servers.length === 0) return "none";
  return servers
    .map((server) => {
      if (server.error !== undefined) return `${server.name} (${server.state}: ${server.error})`;
      if (server.state !== "ready") return `${server.name} (${server.state})`;
      return `${server.name} (ready, ${server.tools} ${server.tools === 1 ? "tool" : "tools"})`;
    })
    .join(", ");
}

/** `bg-1 \`npm run dev\` (running), bg-2 \`make test\` (exited 0)`, or `none`. */
function backgroundLine(commands: readonly BackgroundCommand[]): string {
  if (commands.length === 0) return "none";
  return commands.map((c) => `${c.id} \`${c.command}\` (${c.status})`).join(", ");
}

/** The directories the session works in besides its cwd; nothing when it has none. */
function directoriesLines(session: CommandSession): string[] {
  const directories = session.handle.directories();
  return directories.length === 0 ? [] : [`added directories: ${directories.join(", ")}`];
}

/** The saved rules of the project on one line; nothing when the surface has no rule book. */
function rulesLines(session: CommandSession): string[] {
  if (session.rules === undefined) return [];
  const rules = session.rules();
  return [`saved rules: ${rules.length === 0 ? "none" : rules.join("; ")} (dsh rules lists them)`];
}

/** The hosts sandboxed commands may reach: from the config, saved rules, and answers. */
async function networkLine(session: CommandSession, mode: string): Promise<string> {
  if (mode === "danger-full-access") return "the host's own (full access)";
  if (session.allowedHosts === undefined) return "unknown";
  const hosts = await session.allowedHosts();
  const parts = [
    ["[network] allow", hosts.config],
    ["saved rules", hosts.saved],
    ["allowed once in this session", hosts.once],
  ] as const;
  const listed = parts.flatMap(([what, list]) =>
    list.length === 0 ? [] : [`${what}: ${list.join(", ")}`],
  );
  return listed.length === 0
    ? "through dsh's proxy; no host is allowed yet (commands ask about each)"
    : listed.join("; ");
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}
