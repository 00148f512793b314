import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstRun } from "../../src/app/first-run.ts";

const dir = mkdtempSync(join(tmpdir(), "dsh-first-run-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the first run offers every model of each local server, and writes the one chosen", async () => {
  const config = join(dir, "config.toml");
  writeFileSync(config, "");
  let out = "";
  const io = {
    stdout: { write: (text: string) => void (out += text) },
    stderr: { write: (text: string) => void (out += text) },
    stdinIsTTY: true,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    env: { HOME: dir, DSH_HOME: join(dir, "state"), DSH_CONFIG: config },
    cwd: dir,
    columns: () => 80,
    rows: () => 24,
  };
  const answer = await firstRun(io, {
    findServers: async () => [
      { name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", models: ["qwen3-coder", "llama3.2"] },
      { name: "LM Studio", baseUrl: "http://127.0.0.1:1234/v1", models: ["gemma-3"] },
    ],
    readChoice: async () => "3",
  });
  expect(answer).toBe("continue");
  expect(out).toContain(
    [
      "  2) use Ollama at http://127.0.0.1:11434/v1, model qwen3-coder",
      "  3) use Ollama at http://127.0.0.1:11434/v1, model llama3.2",
      "  4) use LM Studio at http://127.0.0.1:1234/v1, model gemma-3",
    ].join("\n"),
  );
  expect(readFileSync(config, "utf8")).toContain('model = "llama3.2"');
});
