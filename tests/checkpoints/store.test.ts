/**
 * The checkpoint store on its own, over real git and real temp dirs: bounded in size (the
 * oldest turns go first, and /undo then says it cannot reach them), gone with its session, and
 * without git no checkpoints at all, said plainly.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkpointDir,
  openSessionCheckpoints,
  removeCheckpoints,
} from "../../src/checkpoints/session-checkpoints.ts";
import { silentLogger } from "../../src/log.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place() {
  const base = mkdtempSync(join(tmpdir(), "dsh-checkpoint-store-"));
  made.push(base);
  const root = join(base, "project");
  mkdirSync(root);
  return { home: join(base, "home"), root };
}

describe("the checkpoint store", () => {
  test("over its size limit the oldest turns go first, and /undo says it cannot reach them", async () => {
    const { home, root } = place();
    const checkpoints = openSessionCheckpoints({
      home,
      sessionId: "s",
      roots: [root],
      settings: { enabled: true, maxSizeMb: 1 },
      path: process.env.PATH,
      logger: silentLogger,
    });
    const dropped: string[] = [];
    for (let turn = 0; turn < 4; turn++) {
      await checkpoints.before(`t${turn}`);
      // Random bytes do not compress: each turn adds about 400 KiB to the store.
      writeFileSync(join(root, "blob.bin"), randomBytes(400_000));
      dropped.push(...(await checkpoints.after(`t${turn}`)));
    }
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped[0]).toBe("t0");
    const rewind = await checkpoints.rewindPlan(["t0", "t1", "t2", "t3"]);
    expect(rewind).toEqual({
      type: "none",
      reason: expect.stringContaining("dropped to keep the store under 1 MB"),
    });
    // The newest turn is still there to undo.
    const undo = await checkpoints.undoPlan();
    expect(undo.type).toBe("plan");
    if (undo.type === "plan") expect(undo.plan.turnIds).toEqual(["t3"]);
    checkpoints.close();
  });

  test("undo never removes through a link swapped in for a folder since the turn", async () => {
    const { home, root } = place();
    const outside = join(root, "..", "outside");
    mkdirSync(join(outside, "victim", "x"), { recursive: true });
    writeFileSync(join(outside, "victim", "x", "keep"), "mine");
    const checkpoints = openSessionCheckpoints({
      home,
      sessionId: "s",
      roots: [root],
      settings: { enabled: true, maxSizeMb: 100 },
      path: process.env.PATH,
      logger: silentLogger,
    });
    await checkpoints.before("t0");
    mkdirSync(join(root, "d", "victim", "x"), { recursive: true });
    writeFileSync(join(root, "d", "victim", "x", "keep"), "made by the turn");
    await checkpoints.after("t0");
    // Later, something still running swaps the folder for a link out of the workspace.
    renameSync(join(root, "d"), join(root, "..", "d-moved"));
    symlinkSync(outside, join(root, "d"));
    const undo = await checkpoints.undoPlan();
    expect(undo.type).toBe("plan");
    if (undo.type !== "plan") return;
    const reports = await checkpoints.apply(undo.plan, true);
    expect(existsSync(join(outside, "victim", "x", "keep"))).toBe(true);
    expect(reports.flatMap((report) => report.removed)).toEqual([]);
    expect(reports.flatMap((report) => report.unreachable)).toEqual(["d/victim/x/keep"]);
    checkpoints.close();
  });

  test("a session's store is removed with it", async () => {
    const { home, root } = place();
    const checkpoints = openSessionCheckpoints({
      home,
      sessionId: "gone",
      roots: [root],
      settings: { enabled: true, maxSizeMb: 64 },
      path: process.env.PATH,
      logger: silentLogger,
    });
    await checkpoints.before("t0");
    expect(existsSync(checkpointDir(home, "gone"))).toBe(true);
    checkpoints.close();
    removeCheckpoints(home, "gone");
    expect(existsSync(checkpointDir(home, "gone"))).toBe(false);
  });

  test("without git there are no checkpoints, and the commands say why", async () => {
    const { home, root } = place();
    const checkpoints = openSessionCheckpoints({
      home,
      sessionId: "s",
      roots: [root],
      settings: { enabled: true, maxSizeMb: 64 },
      path: join(root, "no-bin"),
      logger: silentLogger,
    });
    expect(checkpoints.unavailable).toContain("git is not installed");
    await checkpoints.before("t0");
    expect(existsSync(checkpointDir(home, "s"))).toBe(false);
    expect(await checkpoints.undoPlan()).toEqual({
      type: "none",
      reason: expect.stringContaining("git is not installed"),
    });
  });
});

test("a git found through a relative PATH entry or inside the workspace is never run", async () => {
  const { home, root } = place();
  const marker = join(root, "..", "ran");
  writeFileSync(join(root, "git"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  for (const path of [".", `:${root}`, root]) {
    const checkpoints = openSessionCheckpoints({
      home,
      sessionId: "s",
      roots: [root],
      settings: { enabled: true, maxSizeMb: 64 },
      path,
      logger: silentLogger,
    });
    expect(checkpoints.unavailable).toContain("git is not installed");
    await checkpoints.before("t0");
    checkpoints.close();
  }
  expect(existsSync(marker)).toBe(false);
});

test("a root that is / or holds the user's home gets no checkpoints: it would copy everything", () => {
  const { home, root } = place();
  const open = (roots: string[]) =>
    openSessionCheckpoints({
      home,
      sessionId: "s",
      roots,
      settings: { enabled: true, maxSizeMb: 64 },
      path: process.env.PATH,
      userHome: join(root, "me"),
      logger: silentLogger,
    }).unavailable;
  expect(open([root])).toContain(`dsh keeps no checkpoints of ${root}`);
  expect(open(["/"])).toContain("dsh keeps no checkpoints of /");
  expect(open([join(root, "me", "project")])).toBeUndefined();
});
