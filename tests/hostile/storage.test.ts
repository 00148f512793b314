/**
 * Storage faults under a live `dsh acp`: the disk fills mid-answer (a real tmpfs in a private
 * mount namespace, seen from outside through `/proc/<pid>/root`), the session file is deleted
 * or cut short. A prompt is answered successfully only when its turn is on disk.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, rmSync, truncateSync } from "node:fs";
import { endReasons, openTurns, readStrictLog } from "./checks.ts";
import { responseTo } from "./raw-acp.ts";
import { startSession } from "./session-rig.ts";

/** Runs dsh with `DSH_HOME` on a tmpfs of `size` that only its own mount namespace sees. */
const onSmallDisk =
  (size: string) =>
  (argv: readonly string[]): string[] => [
    "unshare",
    "--mount",
    "--propagation",
    "private",
    "--",
    "sh",
    "-c",
    `mount -t tmpfs -o size=${size} dsh-test "$DSH_HOME" && exec "$@"`,
    "sh",
    ...argv,
  ];

/** Fills the file system holding `path` until a write fails with ENOSPC. */
function fillDisk(path: string): void {
  const block = Buffer.alloc(64 * 1024);
  for (;;) {
    try {
      appendFileSync(path, block);
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOSPC") return;
      throw error;
    }
  }
}

describe.concurrent("dsh acp storage faults", () => {
  test("a full disk mid-answer ends the turn with an error; once space returns the next prompt works and the log is whole", async () => {
    await using rig = await startSession({
      wrap: onSmallDisk("1m"),
      prepare: (project) => mkdirSync(project.home),
    });
    const { project, model, dsh, sessionId } = rig;
    // The home as dsh sees it, inside its mount namespace.
    const home = `/proc/${dsh.proc.pid}/root${project.home}`;
    const logPath = `/proc/${dsh.proc.pid}/root${project.logPath(sessionId)}`;
    const release = Promise.withResolvers<void>();
    model.script({
      respond: {
        stream: [
          { text: "start " },
          { until: release.promise },
          { text: "x".repeat(64 * 1024) },
          { finish: "stop" },
        ],
      },
    });
    const first = await dsh.prompt(sessionId, "write a lot");
    await model.received(0);
    fillDisk(`${home}/filler`);
    release.resolve();
    const failed = await dsh.waitFor(responseTo(first));
    expect(failed.result).toBeUndefined();
    expect(failed.error?.message).toContain("cannot be written");
    expect(failed.error?.message).toContain("ENOSPC");

    rmSync(`${home}/filler`);
    model.script({ respond: { stream: [{ text: "second answer" }, { finish: "stop" }] } });
    const second = await dsh.prompt(sessionId, "again");
    expect((await dsh.waitFor(responseTo(second))).result).toEqual({ stopReason: "end_turn" });

    const events = await readStrictLog(logPath);
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["error", "end_turn"],
      open: [],
    });
    expect(events.filter((e) => e.type === "assistant_text").map((e) => e.text)).toEqual([
      "second answer",
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a log write over the file size limit (EFBIG) ends the turn with an error; the next, smaller turn works", async () => {
    await using rig = await startSession({
      wrap: (argv) => ["prlimit", "--fsize=65536", "--", ...argv],
    });
    const { project, model, dsh, sessionId } = rig;
    model.script({ respond: { stream: [{ text: "y".repeat(100 * 1024) }, { finish: "stop" }] } });
    const failed = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "too much")));
    expect(failed.error?.message).toContain("EFBIG");
    model.script({ respond: { stream: [{ text: "small" }, { finish: "stop" }] } });
    const next = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "less")));
    expect(next.result).toEqual({ stopReason: "end_turn" });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["error", "end_turn"],
      open: [],
    });
  });

  test("a session file deleted while live is written anew at the next prompt and loads in a new process", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    model.script({ respond: { stream: [{ text: "one" }, { finish: "stop" }] } });
    await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "first")));
    rmSync(project.logPath(sessionId));
    model.script({ respond: { stream: [{ text: "two" }, { finish: "stop" }] } });
    const second = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "second")));
    expect(second.result).toEqual({ stopReason: "end_turn" });
    const events = await readStrictLog(project.logPath(sessionId));
    expect(events.filter((e) => e.type === "assistant_text").map((e) => e.text)).toEqual([
      "one",
      "two",
    ]);
    expect(endReasons(events)).toEqual(["end_turn", "end_turn"]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a session file cut mid-line while live is written anew, so it still loads", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    model.script({ respond: { stream: [{ text: "one, a little longer" }, { finish: "stop" }] } });
    await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "first")));
    const size = Bun.file(project.logPath(sessionId)).size;
    truncateSync(project.logPath(sessionId), size - 30);
    model.script({ respond: { stream: [{ text: "two" }, { finish: "stop" }] } });
    await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "second")));
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect(endReasons(events)).toEqual(["end_turn", "end_turn"]);
  });
});
