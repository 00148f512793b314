import { describe, expect, test } from "bun:test";
import type {
  AgentHandle,
  SessionSettings,
  SessionStatus,
  TurnOutcome,
} from "../../src/agent/types.ts";
import {
  type CommandSession,
  SLASH_COMMANDS,
  findSlashCommand,
  runSlashCommand,
} from "../../src/commands/index.ts";

/** A handle at the surface seam: it records what the commands asked of it. */
function recordingSession(): { session: CommandSession; calls: unknown[] } {
  const calls: unknown[] = [];
  let settings: SessionSettings = {
    model: "deepseek-flash",
    effort: "high",
    knobs: { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
  };
  const outcome: TurnOutcome = { turnId: "t1", reason: "end_turn" };
  const status: SessionStatus = { contextUsed: 1234, contextWindow: 100_000, costUsd: 0.5 };
  const handle = {
    sessionId: "s",
    cwd: "/w",
    settings: () => settings,
    configure(change: Partial<SessionSettings>) {
      calls.push({ configure: change });
      settings = { ...settings, ...change };
      return settings;
    },
    status: () => status,
    directories: () => [],
    mcpServers: () => [
      { name: "github", state: "ready", tools: 12 },
      { name: "docs", state: "failed", tools: 0, error: "connection refused" },
      { name: "slow", state: "starting", tools: 0 },
    ],
    async compact(options: { focus?: string; signal: AbortSignal }) {
      calls.push({ compact: options.focus ?? null });
      return outcome;
    },
  } as unknown as AgentHandle;
  const session: CommandSession = {
    handle,
    models: () => [
      { id: "deepseek-flash", name: "DeepSeek Flash", thinking: "deepseek" },
      { id: "plain", name: "plain", thinking: "none" },
    ],
    sandbox: async () => ({ backend: "bwrap", ok: true }),
    runTurn: (start) => start(new AbortController().signal),
    async settingsChanged(changed) {
      calls.push({ changed: changed.model });
    },
  };
  return { session, calls };
}

async function run(text: string, session: CommandSession) {
  const invocation = findSlashCommand(text);
  if (invocation === undefined) throw new Error(`not a command: ${text}`);
  return runSlashCommand(invocation, session);
}

describe("slash commands", () => {
  test("parse a known /name with its arguments; anything else is a prompt", () => {
    expect(
      [
        "/compact  keep the API notes ",
        "  /status",
        "/statusx",
        "/ model",
        "status",
        "/Status",
      ].map((text) => {
        const found = findSlashCommand(text);
        return found === undefined ? undefined : [found.command.name, found.args];
      }),
    ).toEqual([
      ["compact", "keep the API notes"],
      ["status", ""],
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(SLASH_COMMANDS.map((c) => c.name)).toEqual([
      "compact",
      "init",
      "model",
      "effort",
      "permission",
      "status",
      "skills",
      "commands",
      "undo",
      "rewind",
      "diff",
      "fork",
      "add-dir",
    ]);
  });

  test("/compact hands its focus to the handle's compaction as a turn", async () => {
    const { session, calls } = recordingSession();
    expect(await run("/compact the parser work", session)).toEqual({
      type: "turn",
      outcome: { turnId: "t1", reason: "end_turn" },
    });
    await run("/compact", session);
    expect(calls).toEqual([{ compact: "the parser work" }, { compact: null }]);
  });

  test("/model, /effort and /permission configure the handle and tell the surface", async () => {
    const { session, calls } = recordingSession();
    await run("/model plain", session);
    await expect(run("/effort low", session)).rejects.toThrow(
      "model plain has no reasoning effort setting",
    );
    await run("/model deepseek-flash", session);
    await run("/effort LOW", session);
    await run("/permission read-only", session);
    await expect(run("/permission custom", session)).rejects.toThrow("custom cannot be chosen");
    expect(calls).toEqual([
      { configure: { model: "plain" } },
      { changed: "plain" },
      { configure: { model: "deepseek-flash" } },
      { changed: "deepseek-flash" },
      { configure: { effort: "low" } },
      { changed: "deepseek-flash" },
      { configure: { knobs: { sandboxMode: "read-only", approvalPolicy: "on-request" } } },
      { changed: "deepseek-flash" },
    ]);
  });

  test("/status reports from the session alone", async () => {
    const { session } = recordingSession();
    expect(await run("/status", session)).toEqual({
      type: "reply",
      text: [
        "- model: deepseek-flash (DeepSeek Flash)",
        "- effort: high",
        "- permission: workspace-write",
        "- sandbox: bwrap",
        "- context: 1,234 of 100,000 tokens (1.2%)",
        "- cost: $0.5000",
        "- MCP servers: github (ready, 12 tools), docs (failed: connection refused), slow (starting)",
        "- background commands: none",
        "- network: unknown",
      ].join("\n"),
    });
  });

  test("/status lists the session's background commands with how each is", async () => {
    const { session } = recordingSession();
    const background = [
      { id: "bg-1", command: "npm run dev", status: "running" },
      { id: "bg-2", command: "make test", status: "exited 2" },
    ];
    const base = session.handle.status();
    const handle = { ...session.handle, status: () => ({ ...base, background }) };
    const reply = await run("/status", { ...session, handle });
    expect(reply.type === "reply" ? reply.text.split("\n").at(-2) : "").toBe(
      "- background commands: bg-1 `npm run dev` (running), bg-2 `make test` (exited 2)",
    );
  });

  test("/status lists the hosts the session's commands may reach, by where each is allowed", async () => {
    const { session } = recordingSession();
    const hosts = {
      config: ["registry.npmjs.org"],
      saved: ["pypi.org"],
      once: ["example.com:443"],
    };
    const reply = await run("/status", { ...session, allowedHosts: async () => hosts });
    expect(reply.type === "reply" ? reply.text.split("\n").at(-1) : "").toBe(
      "- network: [network] allow: registry.npmjs.org; saved rules: pypi.org; " +
        "allowed once in this session: example.com:443",
    );
    const none = await run("/status", {
      ...session,
      allowedHosts: async () => ({ config: [], saved: [], once: [] }),
    });
    expect(none.type === "reply" ? none.text.split("\n").at(-1) : "").toBe(
      "- network: through dsh's proxy; no host is allowed yet (commands ask about each)",
    );
  });
});
