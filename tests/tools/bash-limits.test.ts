/** The `bash` tool tells the model when a sandbox limit ended its command (the status line). */
import { expect } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCommandRunner } from "../../src/exec/runner.ts";
import { silentLogger } from "../../src/log.ts";
import { createBashTool } from "../../src/tools/bash.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { bwrapOnly } from "../exec/sandbox-support.ts";

// macOS bounds no memory (README); its process bound is checked in tests/macos.
const sandboxTest = bwrapOnly("memory is bounded on Linux only");
import { toolContext } from "./harness.ts";

sandboxTest("a command that ran into the memory limit says so in its status line", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-bash-limits-")));
  await using runner = createCommandRunner({
    env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
    sandbox: "auto",
    home: "/nonexistent-home",
    stateDir: "/nonexistent-state",
    logger: silentLogger,
    commandLimits: { processes: 64, memoryBytes: 256 * 1024 * 1024 },
  });
  try {
    const command = `awk 'BEGIN { s = "x"; while (1) s = s s }'`;
    const { result } = await createToolRegistry([createBashTool({ runner })]).execute(
      "bash",
      JSON.stringify({ command }),
      toolContext(dir),
    );
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(
      /^\[(exit code \d+|killed by SIG\w+); it (likely )?ran into the sandbox's limit of 256 MiB of memory \(\[limits\] memory_mb\); sandbox: workspace-write; \d+\.\d s\]\n/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
