import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConflictError, InvalidInputError, NotFoundError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { newSessionId } from "../../src/session/ids.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { HOSTILE_IDS, type TempHome, recordingLogger, tempHome } from "./helpers.ts";

let home: TempHome;
afterEach(() => home[Symbol.dispose]());

/** Writes a log by hand so its timestamps are exactly the ones a test needs. */
function writeLog(
  id: string,
  createdAt: string,
  events: { at: string; text?: string }[],
  tail = "",
) {
  const header = { type: "header", version: 1, id, cwd: "/w", createdAt };
  const lines = events.map((event, index) =>
    event.text === undefined
      ? { type: "turn_start", seq: index + 1, at: event.at, turnId: `t${index}` }
      : {
          type: "user_message",
          seq: index + 1,
          at: event.at,
          turnId: `t${index}`,
          content: [{ type: "text", text: event.text }],
        },
  );
  mkdirSync(home.sessions, { recursive: true });
  const body = [header, ...lines].map((line) => `${JSON.stringify(line)}\n`).join("");
  writeFileSync(join(home.sessions, `${id}.jsonl`), body + tail);
}

function summary(
  id: string,
  title: string,
  createdAt: string,
  updatedAt: string,
  directories: string[] = [],
) {
  return { id, cwd: "/w", title, createdAt, updatedAt, directories };
}

const text = (body: string) => [{ type: "text" as const, text: body }];

describe("session store", () => {
  test.each(HOSTILE_IDS)(
    "an id with %s is refused before any file is touched",
    async (_label, id) => {
      home = tempHome();
      writeFileSync(join(home.path, "x.jsonl"), "");
      const store = createSessionStore({ home: home.path, logger: silentLogger });
      await expect(store.open(id)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(store.delete(id)).rejects.toBeInstanceOf(InvalidInputError);
      expect(readdirSync(home.path)).toEqual(["x.jsonl"]);
    },
  );

  test("list is most recently updated first, titled by the first user message", async () => {
    home = tempHome();
    const [older, newer, idle, long] = [
      newSessionId(),
      newSessionId(),
      newSessionId(),
      newSessionId(),
    ];
    writeLog(older, "2026-01-01T00:00:00.000Z", [
      { at: "2026-01-01T00:00:01.000Z" },
      { at: "2026-01-01T00:00:02.000Z", text: "\n  fix the build  \nthen run tests" },
      { at: "2026-01-03T00:00:00.000Z" },
    ]);
    writeLog(newer, "2026-01-02T00:00:00.000Z", [
      { at: "2026-01-02T00:00:01.000Z", text: "second" },
    ]);
    writeLog(idle, "2026-01-02T12:00:00.000Z", []);
    writeLog(long, "2026-01-01T00:00:00.000Z", [
      { at: "2026-01-01T00:00:00.500Z", text: "x ".repeat(100) },
    ]);
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    expect(await store.list()).toEqual([
      summary(older, "fix the build", "2026-01-01T00:00:00.000Z", "2026-01-03T00:00:00.000Z"),
      summary(idle, "(empty)", "2026-01-02T12:00:00.000Z", "2026-01-02T12:00:00.000Z"),
      summary(newer, "second", "2026-01-02T00:00:00.000Z", "2026-01-02T00:00:01.000Z"),
      summary(long, `${"x ".repeat(39)}x…`, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.500Z"),
    ]);
  });

  test("list skips a corrupt log with a warning and ignores foreign files", async () => {
    home = tempHome();
    const [good, torn, corrupt, empty] = [
      newSessionId(),
      newSessionId(),
      newSessionId(),
      newSessionId(),
    ];
    writeLog(good, "2026-01-01T00:00:00.000Z", [{ at: "2026-01-01T00:00:01.000Z", text: "good" }]);
    writeLog(
      torn,
      "2026-01-01T00:00:00.000Z",
      [{ at: "2026-01-01T00:00:02.000Z", text: "torn" }],
      '{"type":"tu',
    );
    writeFileSync(join(home.sessions, `${corrupt}.jsonl`), "not a header\n");
    writeFileSync(join(home.sessions, `${empty}.jsonl`), "");
    writeFileSync(join(home.sessions, "notes.txt"), "hello");
    writeFileSync(join(home.sessions, "..jsonl"), "");
    const shouting = `${newSessionId().toUpperCase()}.jsonl`;
    writeFileSync(join(home.sessions, shouting), "");
    const logger = recordingLogger();
    const store = createSessionStore({ home: home.path, logger });
    const listed = await store.list();
    expect(listed.map((summary) => [summary.id, summary.title, summary.updatedAt])).toEqual([
      [torn, "torn", "2026-01-01T00:00:02.000Z"],
      [good, "good", "2026-01-01T00:00:01.000Z"],
    ]);
    // One warning for everything that is not a dsh log (another program may share the folder).
    expect(logger.warnings).toHaveLength(1);
    const listedFiles = logger.warnings[0]?.data?.files as string[] | undefined;
    const files = (listedFiles ?? []).map((f) => f.split(":")[0]).sort();
    expect(files).toEqual(
      [
        join(home.sessions, `${corrupt}.jsonl`),
        join(home.sessions, `${empty}.jsonl`),
        "notes.txt",
        shouting,
      ].sort(),
    );
  });

  test("list is empty before any session exists", async () => {
    home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    expect(await store.list()).toEqual([]);
    expect(readdirSync(home.path)).toEqual([]);
  });

  test("delete refuses a log open for writing, then removes it and its lock for good", async () => {
    home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const log = await store.create({ cwd: "/w" });
    const { id } = log.header;
    await expect(store.delete(id)).rejects.toBeInstanceOf(ConflictError);
    await log[Symbol.asyncDispose]();
    await store.delete(id);
    expect({ files: readdirSync(home.sessions), listed: await store.list() }).toEqual({
      files: [],
      listed: [],
    });
    await expect(store.delete(id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.open(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test("a created session is listed as soon as it exists", async () => {
    home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    await using log = await store.create({ cwd: "/w" });
    const link = { type: "resource_link", uri: "file:///w/a.ts", name: "a.ts" } as const;
    log.append({ type: "user_message", turnId: "t1", content: [link] });
    await log.flush();
    const [listed] = await store.list();
    expect(listed).toEqual(
      summary(log.header.id, "@a.ts", log.header.createdAt, log.events[0]?.at ?? ""),
    );
  });

  test.each([
    ["small events at both ends", 10, 10, `ask ${"q".repeat(10)}`],
    ["a first user message larger than the read window", 100_000, 10, `ask ${"q".repeat(75)}…`],
    ["a last event larger than the read window", 10, 100_000, `ask ${"q".repeat(10)}`],
  ])("list summarises a large log with %s", async (_name, userBytes, lastBytes, title) => {
    home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const log = await store.create({ cwd: "/w" });
    log.append({ type: "turn_start", turnId: "t1" });
    log.append({
      type: "user_message",
      turnId: "t1",
      content: text(`ask ${"q".repeat(userBytes)}`),
    });
    for (let step = 0; step < 20; step++) {
      log.append({ type: "assistant_text", turnId: "t1", step, text: "a".repeat(20_000) });
    }
    const lastText = "z".repeat(lastBytes);
    const last = log.append({ type: "assistant_text", turnId: "t1", step: 20, text: lastText });
    await log[Symbol.asyncDispose]();
    expect(await store.list()).toEqual([
      summary(log.header.id, title, log.header.createdAt, last.at),
    ]);
  });

  test("list names a log's added directories wherever they are, a line across read chunks too", async () => {
    home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const log = await store.create({ cwd: "/w" });
    const path = join(home.sessions, `${log.header.id}.jsonl`);
    const size = async () => {
      await log.flush();
      return Bun.file(path).size;
    };
    log.append({ type: "turn_start", turnId: "t1" });
    log.append({ type: "directory", path: "/first" });
    const chunk = 1024 * 1024;
    let step = 0;
    while ((await size()) < chunk - 30_000) {
      log.append({ type: "assistant_text", turnId: "t1", step: step++, text: "a".repeat(20_000) });
    }
    while ((await size()) < chunk - 150) {
      log.append({ type: "assistant_text", turnId: "t1", step: step++, text: "b" });
    }
    const across = `/across/${"d".repeat(300)}`;
    const before = await size();
    log.append({ type: "directory", path: across });
    // The line starts before the first chunk's end and ends after it.
    expect(before).toBeLessThan(chunk);
    expect(await size()).toBeGreaterThan(chunk);
    log.append({ type: "directory", path: "/first" });
    for (let i = 0; i < 60; i++) {
      log.append({ type: "assistant_text", turnId: "t1", step: step++, text: "c".repeat(20_000) });
    }
    log.append({ type: "directory", path: "/last" });
    const last = log.append({ type: "assistant_text", turnId: "t1", step, text: "end" });
    await log[Symbol.asyncDispose]();
    expect(await store.list()).toEqual([
      summary(log.header.id, "(empty)", log.header.createdAt, last.at, ["/first", across, "/last"]),
    ]);
    // A later list reads what was appended since, and still has what came before.
    const again = await store.open(log.header.id);
    again.append({ type: "directory", path: "/later" });
    const later = again.append({ type: "assistant_text", turnId: "t1", step: step + 1, text: "e" });
    await again[Symbol.asyncDispose]();
    expect(await store.list()).toEqual([
      summary(log.header.id, "(empty)", log.header.createdAt, later.at, [
        "/first",
        across,
        "/last",
        "/later",
      ]),
    ]);
  });
});
