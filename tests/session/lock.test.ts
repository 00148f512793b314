import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ConflictError, InvalidInputError, NotFoundError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { newSessionId } from "../../src/session/ids.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { recordingLogger, type TempHome, tempHome, userMessage } from "./helpers.ts";
import { readSessionLog } from "../support/read-session.ts";

const HOLDER = join(import.meta.dir, "fixtures", "hold-session.ts");
/** Pid reuse and reboots are only detectable where procfs shows start times and boot ids. */
const PROCFS = existsSync("/proc/self/stat");

/** Reads a stream one line at a time; "" at EOF. */
function lineReader(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return async () => {
    for (;;) {
      const end = buffer.indexOf("\n");
      if (end >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) return buffer;
      buffer += decoder.decode(value, { stream: true });
    }
  };
}

interface Holder extends AsyncDisposable {
  readonly pid: number;
  readonly process: Bun.Subprocess<"pipe", "pipe", "inherit">;
  /** Asks the child to open the session; resolves with its report line. */
  open(): Promise<string>;
  /** Closes the child's stdin; resolves with its last line once it has exited 0. */
  close(): Promise<string>;
}

/** Another process running `fixtures/hold-session.ts`, loaded and waiting. */
async function startHolder(home: TempHome, id: string): Promise<Holder> {
  const child = Bun.spawn([process.execPath, HOLDER, home.path, id], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const next = lineReader(child.stdout);
  expect(await next()).toBe("ready");
  return {
    pid: child.pid,
    process: child,
    open() {
      child.stdin.write("open\n");
      child.stdin.flush();
      return next();
    },
    async close() {
      child.stdin.end();
      const line = await next();
      expect(await child.exited).toBe(0);
      return line;
    },
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await child.exited;
    },
  };
}

/** A saved session with one event, its writer closed. */
async function savedSession(home: TempHome): Promise<string> {
  const store = createSessionStore({ home: home.path, logger: silentLogger });
  await using log = await store.create({ cwd: "/w" });
  log.append(userMessage("t1", "hello"));
  return log.header.id;
}

const lockPath = (home: TempHome, id: string) => join(home.sessions, `${id}.lock`);
const lockPid = (home: TempHome, id: string): unknown =>
  JSON.parse(readFileSync(lockPath(home, id), "utf8")).pid;

async function conflictOf(attempt: Promise<unknown>): Promise<ConflictError> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof ConflictError) return error;
  throw new Error(`expected a ConflictError, got ${String(error)}`);
}

/** Opens the session here, over a stale lock: the lock becomes ours and goes on dispose. */
async function expectTakeover(home: TempHome, id: string): Promise<void> {
  const store = createSessionStore({ home: home.path, logger: silentLogger });
  const log = await store.open(id);
  expect(lockPid(home, id)).toBe(process.pid);
  await log[Symbol.asyncDispose]();
  expect(readdirSync(home.sessions)).toEqual([`${id}.jsonl`]);
}

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

describe("session lock", () => {
  test("an open in another process is refused with the holder's pid until the holder disposes", async () => {
    using home = tempHome();
    const id = await savedSession(home);
    await using holder = await startHolder(home, id);
    expect(await holder.open()).toBe("held");
    expect(lockPid(home, id)).toBe(holder.pid);

    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const error = await conflictOf(store.open(id));
    expect(error.message).toBe(`session ${id} is open in another dsh process (pid ${holder.pid})`);
    expect(error.data).toMatchObject({ sessionId: id, pid: holder.pid });

    expect(await holder.close()).toBe("released");
    expect(existsSync(lockPath(home, id))).toBe(false);
    await using log = await store.open(id);
    expect(log.append(userMessage("t2", "again")).seq).toBe(2);
    expect(lockPid(home, id)).toBe(process.pid);
  });

  test("a process that opens a session held here is told this process's pid", async () => {
    using home = tempHome();
    const id = await savedSession(home);
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const log = await store.open(id);
    await using other = await startHolder(home, id);
    expect(await other.open()).toBe(
      `conflict session ${id} is open in another dsh process (pid ${process.pid})`,
    );
    await log[Symbol.asyncDispose]();
    expect(await other.open()).toBe("held");
    expect(await other.close()).toBe("released");
  });

  test("a holder killed with SIGKILL leaves a stale lock that the next open takes over", async () => {
    using home = tempHome();
    const id = await savedSession(home);
    await using holder = await startHolder(home, id);
    expect(await holder.open()).toBe("held");
    holder.process.kill("SIGKILL");
    await holder.process.exited;
    expect(lockPid(home, id)).toBe(holder.pid);
    await expectTakeover(home, id);
  });

  test.each([
    ["garbage", () => "garbage\n"],
    ["nothing at all", () => ""],
    ["a truncated record", () => `{"pid":${process.pid},"host":`],
    ["pid 0", () => JSON.stringify({ pid: 0, host: hostname(), nonce: "n" })],
    [
      "a dead pid",
      async () => JSON.stringify({ pid: await deadPid(), host: hostname(), nonce: "n" }),
    ],
    // The pid is ours now, but the process that wrote this started at another time.
    [
      "this pid from an earlier process",
      () => JSON.stringify({ pid: process.pid, host: hostname(), start: "0", nonce: "n" }),
    ],
  ])("a lock file holding %s is stale", async (_label, content) => {
    using home = tempHome();
    const id = await savedSession(home);
    writeFileSync(lockPath(home, id), await content());
    await expectTakeover(home, id);
  });

  test.each([
    ["another start time (the pid was reused)", { start: "1" }],
    ["another boot", { boot: "00000000-0000-0000-0000-000000000000" }],
  ])("a live pid with %s is stale where procfs tells, held elsewhere", async (_label, token) => {
    using home = tempHome();
    const id = await savedSession(home);
    await using live = Bun.spawn(["cat"], { stdin: "pipe", stdout: "ignore" });
    writeFileSync(
      lockPath(home, id),
      JSON.stringify({ pid: live.pid, host: hostname(), nonce: "n", ...token }),
    );
    if (PROCFS) {
      await expectTakeover(home, id);
    } else {
      const store = createSessionStore({ home: home.path, logger: silentLogger });
      expect((await conflictOf(store.open(id))).data).toMatchObject({ pid: live.pid });
    }
  });

  test("a lock from another host counts as held, and the error says which file to delete", async () => {
    using home = tempHome();
    const id = await savedSession(home);
    const record = { pid: await deadPid(), host: `not-${hostname()}`, nonce: "n" };
    writeFileSync(lockPath(home, id), JSON.stringify(record));
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const error = await conflictOf(store.open(id));
    expect(error.message).toBe(
      `session ${id} is open in a dsh process on ${record.host} (pid ${record.pid}); if that process is gone, delete ${lockPath(home, id)}`,
    );
  });

  test("a second store in the same process is refused too", async () => {
    using home = tempHome();
    const id = await savedSession(home);
    const first = createSessionStore({ home: home.path, logger: silentLogger });
    const second = createSessionStore({ home: home.path, logger: silentLogger });
    await using _log = await first.open(id);
    const error = await conflictOf(second.open(id));
    expect(error.message).toBe(`session ${id} is already open in this process`);
  });

  test("read and list work while another process holds the lock, and list ignores lock files", async () => {
    using home = tempHome();
    const id = await savedSession(home);
    await using holder = await startHolder(home, id);
    expect(await holder.open()).toBe("held");
    // Leftovers of an interrupted takeover, which list must skip as quietly as the lock.
    writeFileSync(join(home.sessions, `${id}.lock.abc`), "{}");
    writeFileSync(join(home.sessions, `${id}.lock.abc.0192.tmp`), "");
    const logger = recordingLogger();
    const store = createSessionStore({ home: home.path, logger });
    expect((await readSessionLog(home.path, id)).events.map((event) => event.type)).toEqual([
      "user_message",
    ]);
    expect((await store.list()).map((summary) => [summary.id, summary.title])).toEqual([
      [id, "hello"],
    ]);
    expect(logger.warnings).toEqual([]);
    expect(await holder.close()).toBe("released");
  });

  test("no lock file is left after a created or reopened writer is disposed", async () => {
    using home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const created = await store.create({ cwd: "/w" });
    const id = created.header.id;
    expect(readdirSync(home.sessions).sort()).toEqual([`${id}.jsonl`, `${id}.lock`]);
    await created[Symbol.asyncDispose]();
    expect(readdirSync(home.sessions)).toEqual([`${id}.jsonl`]);
    const reopened = await store.open(id);
    await reopened[Symbol.asyncDispose]();
    await reopened[Symbol.asyncDispose]();
    expect(readdirSync(home.sessions)).toEqual([`${id}.jsonl`]);
  });

  test("a missing session leaves no lock file, and a failed open releases the lock", async () => {
    using home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    await expect(store.open(newSessionId())).rejects.toBeInstanceOf(NotFoundError);
    expect(existsSync(home.sessions)).toBe(false);

    const id = await savedSession(home);
    const path = join(home.sessions, `${id}.jsonl`);
    writeFileSync(path, "{}\n");
    await expect(store.open(id)).rejects.toBeInstanceOf(InvalidInputError);
    expect(readdirSync(home.sessions)).toEqual([`${id}.jsonl`]);
  });

  test("a log already corrupted by two writers stays an error, without repair", async () => {
    using home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const log = await store.create({ cwd: "/w" });
    const id = log.header.id;
    for (const text of ["a", "b", "c"]) log.append(userMessage("t1", text));
    await log[Symbol.asyncDispose]();
    const path = join(home.sessions, `${id}.jsonl`);
    const lines = readFileSync(path, "utf8").split("\n");
    // A second writer that had read two events appends its own seq 2 after seq 3.
    const duplicate = lines[2]?.replace('"text":"b"', '"text":"other"') ?? "";
    const corrupt = [...lines.slice(0, 4), duplicate, lines[3] ?? "", ""].join("\n");
    writeFileSync(path, corrupt);
    const expected = `corrupt session log ${path}, line 5: seq 2 where 4 was expected`;
    await expect(store.open(id)).rejects.toThrow(expected);
    await expect(readSessionLog(home.path, id)).rejects.toThrow(expected);
    expect(readFileSync(path, "utf8")).toBe(corrupt);
    expect(readdirSync(home.sessions)).toEqual([`${id}.jsonl`]);
  });

  test.each([
    ["no lock", async () => undefined],
    [
      "a stale lock",
      async () => JSON.stringify({ pid: await deadPid(), host: hostname(), nonce: "n" }),
    ],
  ])(
    "of processes opening at once over %s, exactly one gets the writer",
    async (_label, content) => {
      using home = tempHome();
      const id = await savedSession(home);
      const stale = await content();
      if (stale !== undefined) writeFileSync(lockPath(home, id), stale);
      const holders = await Promise.all([1, 2, 3, 4].map(() => startHolder(home, id)));
      try {
        const reports = await Promise.all(holders.map((holder) => holder.open()));
        const winners = holders.filter((_, index) => reports[index] === "held");
        expect(winners.length).toBe(1);
        const winner = winners[0]?.pid;
        // A loser names the process it found in its way: the winner, or (over a stale lock) a
        // contender that held the takeover claim for a moment and then lost to the winner.
        const named = reports
          .filter((report) => report !== "held")
          .map((report) => {
            const match =
              /^conflict session \S+ is open in another dsh process \(pid (\d+)\)$/.exec(report);
            return Number(match?.[1]);
          });
        const contenders = holders.map((holder) => holder.pid);
        expect(named.every((pid) => contenders.includes(pid))).toBe(true);
        expect(named.length).toBe(3);
        expect(lockPid(home, id)).toBe(winner);
        expect(await Promise.all(holders.map((holder) => holder.close()))).toEqual(
          Array(4).fill("released"),
        );
        expect(readdirSync(home.sessions)).toEqual([`${id}.jsonl`]);
      } finally {
        await Promise.all(holders.map((holder) => holder[Symbol.asyncDispose]()));
      }
    },
  );
});
