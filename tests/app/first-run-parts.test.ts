/** The parts of the first run: finding local model servers, and writing the choice to the config. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTopLevelKeys } from "../../src/app/config-write.ts";
import { findLocalServers } from "../../src/app/local-servers.ts";
import { loadConfig } from "../../src/app/config.ts";

describe("findLocalServers", () => {
  test("names the servers whose models list answers, with their models, and skips the rest", async () => {
    using server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) =>
        new URL(request.url).pathname === "/v1/models"
          ? Response.json({ object: "list", data: [{ id: "qwen3-coder" }, { id: "llama3" }] })
          : new Response("no", { status: 404 }),
    });
    using closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("x") });
    const closedPort = closed.port ?? 0;
    closed.stop(true);
    using html = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<html>") });
    const found = await findLocalServers({
      candidates: [
        { name: "Ollama", port: server.port ?? 0 },
        { name: "LM Studio", port: closedPort },
        { name: "vLLM", port: html.port ?? 0 },
      ],
    });
    expect(found).toEqual([
      {
        name: "Ollama",
        baseUrl: `http://127.0.0.1:${server.port}/v1`,
        models: ["qwen3-coder", "llama3"],
      },
    ]);
  });
});

describe("setTopLevelKeys", () => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-config-write-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });

  test("creates the file", () => {
    const path = join(dir, "new", "config.toml");
    setTopLevelKeys(path, { base_url: "http://127.0.0.1:11434/v1", model: "qwen3-coder" });
    expect(readFileSync(path, "utf8")).toBe(
      'base_url = "http://127.0.0.1:11434/v1"\nmodel = "qwen3-coder"\n',
    );
  });

  test("replaces a key in place and adds new ones before the first table, keeping the rest", () => {
    const path = join(dir, "config.toml");
    writeFileSync(
      path,
      '# mine\nmodel = "deepseek-flash"\neffort = "low"\n\n[env]\ninclude = ["X"]\nmodel = "not top level"\n',
    );
    setTopLevelKeys(path, { base_url: "http://127.0.0.1:1234/v1", model: "local" });
    expect(readFileSync(path, "utf8")).toBe(
      'base_url = "http://127.0.0.1:1234/v1"\n# mine\nmodel = "local"\neffort = "low"\n\n[env]\ninclude = ["X"]\nmodel = "not top level"\n',
    );
    // Still a config dsh reads: the keys took effect, and nothing else changed meaning.
    const config = loadConfig({ HOME: dir, DSH_CONFIG: path, DSH_HOME: join(dir, "state") });
    expect([config.baseUrl, config.model, config.effort, config.env.include]).toEqual([
      "http://127.0.0.1:1234/v1",
      "local",
      "low",
      ["X"],
    ]);
    cleanup();
  });
});
