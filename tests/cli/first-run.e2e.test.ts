/**
 * The chat's first run with no API key, at a real terminal (tmux): it offers to log in, checks
 * and stores the key, then the chat starts and uses it. The endpoint listens on 127.0.0.2, an
 * address dsh does not take for a keyless local server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { runIf } from "../support/gate.ts";

const KEY = "sk-first-run-42";
const tmux = Bun.which("tmux");
let root: string;
let binary: string;
let server: ReturnType<typeof Bun.serve>;
const seen: string[] = [];

beforeAll(async () => {
  binary = await ensureBinary();
  root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-first-run-")));
  server = Bun.serve({
    hostname: "127.0.0.2",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      seen.push(`${request.method} ${path} ${request.headers.get("authorization")}`);
      if (request.headers.get("authorization") !== `Bearer ${KEY}`) {
        return Response.json({ error: { message: "bad key" } }, { status: 401 });
      }
      if (path === "/models") return Response.json({ object: "list", data: [] });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      return new Response(
        `${chunk({ content: "hello from the endpoint" }, null)}${chunk({}, "stop")}data: [DONE]\n\n`,
        {
          headers: { "content-type": "text/event-stream" },
        },
      );
    },
  });
});

afterAll(() => {
  server?.stop(true);
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Waits until the pane shows `text` (polling the screen: tmux has no event for it). */
async function screenShows(session: string, text: string): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const screen = Bun.spawnSync([
      tmux ?? "tmux",
      "capture-pane",
      "-p",
      "-t",
      session,
    ]).stdout.toString();
    if (screen.includes(text)) return screen;
    await Bun.sleep(20);
  }
  throw new Error(`the screen never showed ${JSON.stringify(text)}`);
}

const keys = (session: string, ...input: string[]) =>
  Bun.spawnSync([tmux ?? "tmux", "send-keys", "-t", session, ...input]);

describe("first run", () => {
  const withTmux = runIf(tmux !== null, test, "it drives the chat at a real terminal: needs tmux");

  withTmux("with no key the chat offers to log in, stores the checked key and starts", async () => {
    const base = join(root, "a");
    mkdirSync(join(base, "project"), { recursive: true });
    writeFileSync(
      join(base, "config.toml"),
      `base_url = "${server.url.href.replace(/\/$/, "")}"\n`,
    );
    const env = [
      `HOME=${base}`,
      `DSH_HOME=${join(base, "state")}`,
      `DSH_CONFIG=${join(base, "config.toml")}`,
      `PATH=${process.env.PATH}`,
      "TERM=xterm",
    ];
    const session = `dsh-first-run-${process.pid}`;
    Bun.spawnSync([
      tmux ?? "tmux",
      "new-session",
      "-d",
      "-s",
      session,
      "-x",
      "120",
      "-y",
      "30",
      "-c",
      join(base, "project"),
      "env",
      "-i",
      ...env,
      binary,
    ]);
    try {
      await screenShows(session, "choose [1]:");
      const menu = await screenShows(session, "1) paste an API key");
      expect(menu).toContain("no API key is set for");
      keys(session, "1", "Enter");
      await screenShows(session, "(input hidden, Enter to finish)");
      keys(session, "-l", KEY);
      keys(session, "Enter");
      const stored = await screenShows(session, "the key works; stored in");
      expect(stored).not.toContain(KEY);
      await screenShows(session, "/help for commands");
      keys(session, "-l", "hi");
      keys(session, "Enter");
      await screenShows(session, "hello from the endpoint");
      expect(JSON.parse(readFileSync(join(base, "state", "auth.json"), "utf8")).apiKey).toBe(KEY);
      expect(seen).toEqual([`GET /models Bearer ${KEY}`, `POST /chat/completions Bearer ${KEY}`]);
    } finally {
      Bun.spawnSync([tmux ?? "tmux", "kill-session", "-t", session]);
    }
  });
});
