/**
 * Placeholders for missing protected paths: made empty before a command, removed by the last
 * command of the project to end, only while they are still what dsh made, never through a
 * symlink; and left by a killed dsh only until the next one starts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { loadFileLocks } from "../../src/exec/file-lock.ts";
import type { FileLocks } from "../../src/exec/file-lock.ts";
import { createPlaceholders } from "../../src/exec/placeholders.ts";
import { silentLogger } from "../../src/log.ts";
import { runIf } from "../support/gate.ts";
import { tempDir } from "./helpers.ts";
import { bwrapOnlySerial } from "./sandbox-support.ts";

/** Placeholders are bwrap's: Seatbelt's rules cover missing paths without one. */
const bwrapTest = bwrapOnlySerial("placeholders exist for bubblewrap only");
import { cleanUp, sleepers, trackedToken, until } from "../hostile/processes.ts";

let locks: FileLocks | undefined;
beforeAll(async () => {
  locks = await loadFileLocks();
});
afterAll(cleanUp);

const linux = process.platform === "linux";
if (!linux) console.warn("SKIPPING the placeholder cases: they go through /proc/self/fd (Linux)");
const linuxTest = runIf(linux, test, "placeholders go through /proc/self/fd, which is Linux's");

function setup(dir: string) {
  const ws = join(dir, "ws");
  const state = join(dir, "state");
  mkdirSync(ws);
  mkdirSync(state);
  // One Placeholders per dsh process; nothing lingers unless a case asks for it.
  const open = (lingerMs = 0) =>
    createPlaceholders({ stateDir: state, locks, logger: silentLogger, lingerMs });
  return { ws, state, open };
}

describe("placeholders of missing protected paths", () => {
  linuxTest(
    "are made empty, in an existing directory too, and removed when the command ends",
    () => {
      using dir = tempDir();
      const { ws, open } = setup(dir.path);
      mkdirSync(join(ws, ".github"));
      mkdirSync(join(dir.path, "elsewhere"));
      symlinkSync(join(dir.path, "elsewhere"), join(ws, ".cargo"));
      const hold = open().hold(ws);
      expect([
        hold.make(join(ws, ".vscode"), "dir"),
        hold.make(join(ws, ".npmrc"), "file"),
        hold.make(join(ws, ".github", "workflows"), "dir"),
        // A symlink on the way is never followed.
        hold.make(join(ws, ".cargo", "config.toml"), "file"),
      ]).toEqual([true, true, true, false]);
      hold.seal();
      expect(readdirSync(ws).sort()).toEqual([".cargo", ".github", ".npmrc", ".vscode"]);
      expect(readdirSync(join(ws, ".github"))).toEqual(["workflows"]);
      expect(readdirSync(join(dir.path, "elsewhere"))).toEqual([]);
      hold.release();
      expect([readdirSync(ws).sort(), readdirSync(join(ws, ".github"))]).toEqual([
        [".cargo", ".github"],
        [],
      ]);
    },
  );

  linuxTest("what anyone put there since is kept, and so is a file replaced by another", () => {
    using dir = tempDir();
    const { ws, open } = setup(dir.path);
    const hold = open().hold(ws);
    hold.make(join(ws, ".vscode"), "dir");
    hold.make(join(ws, ".npmrc"), "file");
    hold.make(join(ws, ".envrc"), "file");
    hold.seal();
    writeFileSync(join(ws, ".vscode", "settings.json"), "{}\n");
    writeFileSync(join(ws, ".npmrc"), "registry=x\n");
    rmSync(join(ws, ".envrc"));
    writeFileSync(join(ws, ".envrc"), "");
    hold.release();
    expect(readdirSync(ws).sort()).toEqual([".envrc", ".npmrc", ".vscode"]);
  });

  linuxTest("the first of two commands to end leaves them; the last removes both's", () => {
    using dir = tempDir();
    const { ws, open } = setup(dir.path);
    // Two dsh processes: each its own holds and lock descriptor.
    const first = open().hold(ws);
    const second = open().hold(ws);
    first.make(join(ws, ".vscode"), "dir");
    second.make(join(ws, ".vscode"), "dir");
    second.make(join(ws, ".zed"), "dir");
    first.seal();
    second.seal();
    first.release();
    expect(readdirSync(ws).sort()).toEqual([".vscode", ".zed"]);
    second.release();
    expect(readdirSync(ws)).toEqual([]);
  });

  linuxTest("a removal never follows a symlink swapped in for a parent", () => {
    using dir = tempDir();
    const { ws, open } = setup(dir.path);
    const outside = join(dir.path, "outside");
    mkdirSync(join(outside, "workflows"), { recursive: true });
    writeFileSync(join(outside, ".npmrc"), "");
    mkdirSync(join(ws, ".github"));
    const hold = open().hold(ws);
    hold.make(join(ws, ".github", "workflows"), "dir");
    hold.seal();
    renameSync(join(ws, ".github"), join(ws, "gh"));
    symlinkSync(outside, join(ws, ".github"));
    hold.release();
    expect([existsSync(join(outside, "workflows")), existsSync(join(outside, ".npmrc"))]).toEqual([
      true,
      true,
    ]);
  });

  linuxTest(
    "linger for the next command of the process, against other processes too, until flushed",
    () => {
      using dir = tempDir();
      const { ws, open } = setup(dir.path);
      const lingering = open(60_000);
      const first = lingering.hold(ws);
      first.make(join(ws, ".vscode"), "dir");
      first.seal();
      // Sealed, the command still knows what it made (git's excludes are written from it).
      expect(first.placeholders()).toEqual([{ path: join(ws, ".vscode"), type: "dir" }]);
      first.release();
      expect(readdirSync(ws)).toEqual([".vscode"]);
      // The next command finds it standing and made by this process.
      const next = lingering.hold(ws);
      expect(next.placeholders()).toEqual([{ path: join(ws, ".vscode"), type: "dir" }]);
      next.release();
      // Another process ending its command while this one lingers leaves it.
      const other = open().hold(ws);
      other.release();
      expect(readdirSync(ws)).toEqual([".vscode"]);
      lingering.flush();
      expect(readdirSync(ws)).toEqual([]);
    },
  );

  test("without a state directory nothing is made (the guards forbid instead)", () => {
    using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(ws);
    const hold = createPlaceholders({
      stateDir: join(dir.path, "missing"),
      locks,
      logger: silentLogger,
    }).hold(ws);
    expect(hold.make(join(ws, ".vscode"), "dir")).toBe(false);
    hold.release();
    expect([readdirSync(ws), existsSync(join(dir.path, "missing"))]).toEqual([[], false]);
  });
});

describe("a dsh killed mid-command", () => {
  bwrapTest("leaves its placeholders until the next dsh starts, which removes them", async () => {
    using dir = tempDir();
    const { ws, state, open } = setup(dir.path);
    const fixture = join(import.meta.dir, "fixtures", "run-with-state.ts");
    const token = trackedToken();
    const helper = Bun.spawn(["bun", fixture, ws, state, `exec sleep ${token}`], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit",
    });
    // The sleep is the command itself once the sandbox is up (its placeholders made).
    await until("the command runs", () => sleepers(token) === 1, 30_000);
    helper.kill("SIGKILL");
    await helper.exited;
    expect(readdirSync(ws)).toContain(".vscode");
    open();
    expect(readdirSync(ws)).toEqual([]);
  });
});
