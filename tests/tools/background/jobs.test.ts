import { describe, expect, test } from "bun:test";
import {
  type JobStart,
  MAX_BACKGROUND_PER_SESSION,
  RING_BYTES,
  createBackgroundJobs,
} from "../../../src/tools/background/jobs.ts";
import type { CommandResult } from "../../../src/exec/types.ts";

const exited = (exitCode: number | null, cancelled = false): CommandResult => ({
  exitCode,
  signal: exitCode === null ? "SIGKILL" : null,
  output: "",
  droppedBytes: 0,
  timedOut: false,
  cancelled,
  durationMs: 1,
});

/** A command that writes what the test says and ends when told (or when it is killed). */
function controlled() {
  let write: (text: string) => void = () => undefined;
  const end = Promise.withResolvers<CommandResult>();
  const start: JobStart = (signal, onOutput) => {
    write = onOutput;
    signal.addEventListener("abort", () => end.resolve(exited(null, true)), { once: true });
    return end.promise;
  };
  return {
    start,
    write: (text: string) => write(text),
    exit: (code: number) => end.resolve(exited(code)),
  };
}

function started(jobs: ReturnType<typeof createBackgroundJobs>, session: string, start: JobStart) {
  const outcome = jobs.start(session, "cmd", start);
  if (!("job" in outcome)) throw new Error(outcome.refused);
  return outcome.job;
}

describe("background jobs", () => {
  test("each read returns what was written since the last one; the exit code is kept", async () => {
    await using jobs = createBackgroundJobs();
    const command = controlled();
    const job = started(jobs, "s", command.start);
    expect([job.id, job.read(1000)]).toEqual(["bg-1", { text: "", dropped: 0 }]);
    command.write("one\n");
    command.write("two\n");
    expect(job.read(1000)).toEqual({ text: "one\ntwo\n", dropped: 0 });
    command.write("three\n");
    command.exit(3);
    await job.wait(60_000, new AbortController().signal);
    expect(job.read(1000)).toEqual({ text: "three\n", dropped: 0 });
    expect(job.status()).toEqual({ state: "exited", code: 3 });
  });

  test("past the ring's size and past a read's budget, the newest is kept and the rest counted", async () => {
    await using jobs = createBackgroundJobs();
    const command = controlled();
    const job = started(jobs, "s", command.start);
    command.write("a".repeat(RING_BYTES));
    command.write("b".repeat(10));
    expect(job.read(4)).toEqual({ text: "bbbb", dropped: RING_BYTES + 6 });
    command.write("xyz");
    expect(job.read(100)).toEqual({ text: "xyz", dropped: 0 });
  });

  test("wait returns at new output; kill ends the command as killed", async () => {
    await using jobs = createBackgroundJobs();
    const command = controlled();
    const job = started(jobs, "s", command.start);
    const waiting = job.wait(60_000, new AbortController().signal);
    command.write("hello");
    await waiting;
    await job.kill();
    expect([job.read(100).text, job.status()]).toEqual(["hello", { state: "killed" }]);
  });

  test("a session keeps its eight newest ended jobs, not every one it ever ran", async () => {
    await using jobs = createBackgroundJobs();
    for (let i = 0; i < 20; i++) {
      const command = controlled();
      const job = started(jobs, "s", command.start);
      command.write("x".repeat(1000));
      command.exit(0);
      await job.wait(60_000, new AbortController().signal);
    }
    const kept = jobs.list("s").map((job) => job.id);
    // Each new start forgets the oldest past eight, so the newest start makes nine at most.
    expect(kept.length).toBeLessThanOrEqual(MAX_BACKGROUND_PER_SESSION + 1);
    expect(kept.at(-1)).toBe("bg-20");
    expect(jobs.get("s", "bg-1")).toBeUndefined();
  });

  test("a session runs at most eight; ending it ends them all and says so", async () => {
    const ended: string[] = [];
    await using jobs = createBackgroundJobs({ sessionEnded: (id) => ended.push(id) });
    const commands = Array.from({ length: MAX_BACKGROUND_PER_SESSION }, () => controlled());
    for (const command of commands) started(jobs, "s", command.start);
    const ninth = jobs.start("s", "one more", controlled().start);
    expect("refused" in ninth ? ninth.refused : "").toContain("- bg-8: cmd");
    expect("job" in jobs.start("other", "elsewhere", controlled().start)).toBe(true);
    await jobs.endSession("s");
    expect(ended).toEqual(["s"]);
    expect(jobs.list("s")).toEqual([]);
    expect(jobs.list("other").map((job) => job.status)).toEqual([{ state: "running" }]);
  });
});
