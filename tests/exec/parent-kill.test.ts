/**
 * sandbox.md §4 case 23: SIGKILL of dsh itself, which no handler sees. bwrap's
 * --die-with-parent and PID namespace must take every descendant down. The sleepers hold a
 * FIFO open for writing, so end-of-file on our read end is the event "they are all gone".
 */
import { afterAll, expect } from "bun:test";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { cleanUp } from "../hostile/processes.ts";
import { killAll, pidsWith, sleepScript, sleepToken, tempDir } from "./helpers.ts";
import { bwrapOnly } from "./sandbox-support.ts";

// macOS's counterpart, through the watchdog and the sweep, is in tests/macos.
const sandboxTest = bwrapOnly(
  "bubblewrap's --die-with-parent and PID namespace; /proc and setsid(1)",
);

const t = sleepToken();
afterAll(async () => {
  killAll(t);
  await cleanUp();
});

sandboxTest("SIGKILL of the parent leaves no sandboxed descendant alive (case 23)", async () => {
  using dir = tempDir();
  const fifo = join(dir.path, "fifo");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const sh = sleepScript(t);
  const command = `${sh.setup}; { sleep $T & (setsid sleep $T &); } 3>fifo; ${sh.ready(2)}; echo ready; wait`;
  const helper = Bun.spawn(
    ["bun", join(import.meta.dir, "fixtures/hold-command.ts"), dir.path, command],
    {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const reader = await open(fifo, "r");
  let seen = "";
  for await (const chunk of helper.stdout) {
    seen += new TextDecoder().decode(chunk);
    if (seen.includes("ready")) break;
  }
  expect(pidsWith(t).length).toBe(2);
  helper.kill("SIGKILL");
  await helper.exited;
  const { bytesRead } = await reader.read(Buffer.alloc(16), 0, 16, null);
  await reader.close();
  expect(bytesRead).toBe(0);
  expect(pidsWith(t)).toEqual([]);
});
