/**
 * A third-party ACP client drives dsh: the `acpx` CLI (npm) runs one prompt against the compiled
 * binary, with the scripted model server behind it and no network.
 */
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const acpx = join(import.meta.dir, "..", "..", "node_modules", ".bin", "acpx");

test("acpx runs a prompt with a command through dsh acp", async () => {
  const binary = await ensureBinary();
  await using model = await startModelServer();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-acpx-")));
  try {
    const project = join(root, "project");
    mkdirSync(project);
    mkdirSync(join(root, "user"));
    writeFileSync(join(root, "config.toml"), "");
    model.script(
      toolTurn([{ id: "c1", name: "bash", args: { command: "echo hi from bash" } }]),
      textTurn("All done: bash said hi.", { reasoning: "ok" }),
    );
    const proc = Bun.spawn(
      [
        acpx,
        "--agent",
        `${binary} acp`,
        "--cwd",
        project,
        "--approve-all",
        "--format",
        "json",
        "exec",
        "say hi with bash",
      ],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: join(root, "user"),
          DSH_HOME: join(root, "home"),
          DSH_CONFIG: join(root, "config.toml"),
          DSH_BASE_URL: model.url,
          DSH_API_KEY: "test-key",
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    const messages: unknown[] = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    const text = JSON.stringify(messages);
    expect(text).toContain('"stopReason":"end_turn"');
    expect(text).toContain('"toolCallId":"c1","status":"completed"');
    expect(text).toContain("All done: bash said hi.");
    expect(model.requests).toHaveLength(2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
