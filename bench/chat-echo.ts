/**
 * Keystroke-to-echo latency of `dsh chat`: the compiled binary under a real pseudo-terminal,
 * one character typed at a time at the prompt, timed from the write to its echo on screen.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath } from "../tests/support/binary.ts";
import { startModelServer } from "../tests/support/model-server.ts";
import { spawnPty } from "../tests/support/pty.ts";
import { median, percentile } from "./stats.ts";

const KEYS = 200;
await using server = await startModelServer();
const root = mkdtempSync(join(tmpdir(), "dsh-bench-echo-"));
writeFileSync(join(root, "config.toml"), "");
try {
  await using pty = spawnPty([binaryPath, "chat"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: root,
      DSH_HOME: join(root, "home"),
      DSH_CONFIG: join(root, "config.toml"),
      DSH_BASE_URL: server.url,
      DSH_API_KEY: "bench",
    },
  });
  await pty.waitFor("› ");
  const times: number[] = [];
  let typed = "";
  for (let i = 0; i < KEYS; i++) {
    // Letters that spell a growing word: each echo redraws the line, so wait for the whole of it.
    const key = String.fromCharCode(97 + (i % 26));
    typed += key;
    const from = pty.output().length;
    const start = performance.now();
    pty.type(key);
    await pty.waitFor(typed.slice(-8), from);
    times.push(performance.now() - start);
    if (i % 40 === 39) {
      pty.type("\u0015");
      typed = "";
      await pty.waitFor("› ", from);
    }
  }
  // Sub-millisecond: two decimals, where `report` gives one.
  console.log(
    `keystroke to echo: median ${median(times).toFixed(2)} ms, p90 ${percentile(times, 90).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms (n=${KEYS})`,
  );
  pty.type("\u0004");
  await pty.exited;
} finally {
  rmSync(root, { recursive: true, force: true });
}
