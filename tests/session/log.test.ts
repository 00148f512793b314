import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConflictError, InvalidInputError, NotFoundError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import type { NewSessionEvent } from "../../src/session/events.ts";
import { newSessionId } from "../../src/session/ids.ts";
import { createSessionStore } from "../../src/session/store.ts";
import type { SessionLog, SessionStore } from "../../src/session/types.ts";
import { type TempHome, tempHome, userMessage } from "./helpers.ts";
import { readSessionLog } from "../support/read-session.ts";

let home: TempHome;
afterEach(() => home[Symbol.dispose]());

function setup() {
  home = tempHome();
  return createSessionStore({ home: home.path, logger: silentLogger });
}

const TURN: NewSessionEvent[] = [
  { type: "turn_start", turnId: "t1" },
  userMessage("t1", "list the files"),
  { type: "prompt_submit", turnId: "t1" },
  { type: "reasoning", turnId: "t1", step: 0, text: "use glob" },
  {
    type: "tool_call",
    turnId: "t1",
    step: 0,
    callId: "c1",
    name: "glob",
    arguments: '{"pattern":"*"}',
    intent: { type: "generic", title: "glob *", kind: "search" },
  },
  {
    type: "tool_result",
    turnId: "t1",
    callId: "c1",
    isError: false,
    output: "a.ts\nb.ts",
    intent: { type: "generic", title: "glob *", kind: "search", locations: [{ path: "/w/a.ts" }] },
  },
  { type: "assistant_text", turnId: "t1", step: 1, text: "Two files." },
  { type: "usage", turnId: "t1", promptTokens: 10, completionTokens: 5 },
  { type: "turn_end", turnId: "t1", reason: "end_turn" },
];

const fileOf = (id: string) => join(home.sessions, `${id}.jsonl`);

/** Creates a session, appends `events` and closes it; returns the closed log. */
async function writeSession(store: SessionStore, events: NewSessionEvent[]): Promise<SessionLog> {
  const log = await store.create({ cwd: "/w" });
  for (const event of events) log.append(event);
  await log[Symbol.asyncDispose]();
  return log;
}

describe("session log", () => {
  test("appended events read back exactly, one JSON line each after the header", async () => {
    const store = setup();
    const log = await store.create({ cwd: "/work/project/" });
    const appended = TURN.map((event) => log.append(event));
    await log.flush();
    await log[Symbol.asyncDispose]();

    expect(appended.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(log.header).toEqual({
      type: "header",
      version: 1,
      id: log.header.id,
      cwd: "/work/project",
      createdAt: log.header.createdAt,
    });
    const read = await readSessionLog(home.path, log.header.id);
    expect(read).toEqual({ header: log.header, events: appended });
    const lines = readFileSync(fileOf(log.header.id), "utf8").split("\n");
    expect(lines.map((line) => (line === "" ? "" : JSON.parse(line)))).toEqual([
      log.header,
      ...appended,
      "",
    ]);
    for (const event of appended) expect(Number.isNaN(Date.parse(event.at))).toBe(false);
  });

  test("seq continues across reopen", async () => {
    const store = setup();
    const first = await writeSession(store, [
      { type: "turn_start", turnId: "t1" },
      userMessage("t1", "hi"),
    ]);
    const second = await store.open(first.header.id);
    second.append({ type: "turn_end", turnId: "t1", reason: "end_turn" });
    await second[Symbol.asyncDispose]();
    const third = await store.open(first.header.id);
    expect(third.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    await third[Symbol.asyncDispose]();
  });

  test("U+2028 and U+2029 inside text survive a round trip", async () => {
    const store = setup();
    const text = "line\u2028separator\u2029paragraph\r\nand 🎉";
    const log = await writeSession(store, [
      userMessage("t1", text),
      { type: "turn_end", turnId: "t1", reason: "end_turn" },
    ]);
    const { events } = await readSessionLog(home.path, log.header.id);
    expect(events.length).toBe(2);
    expect(events[0]?.type === "user_message" && events[0].content).toEqual([
      { type: "text", text },
    ]);
  });

  test("a torn last line is dropped, and truncated away just before the next append", async () => {
    const store = setup();
    const log = await writeSession(store, [
      { type: "turn_start", turnId: "t1" },
      userMessage("t1", "hello"),
    ]);
    const path = fileOf(log.header.id);
    const good = readFileSync(path);
    appendFileSync(
      path,
      '{"type":"assistant_text","seq":3,"at":"2026-01-01T00:00:00.000Z","turnId":"t1","st',
    );

    const read = await readSessionLog(home.path, log.header.id);
    expect(read.events.map((event) => event.seq)).toEqual([1, 2]);
    const reopened = await store.open(log.header.id);
    expect(reopened.events).toEqual(read.events);
    // Nothing is written until the log has something to append.
    expect(readFileSync(path).length).toBeGreaterThan(good.length);
    const next = reopened.append({ type: "turn_end", turnId: "t1", reason: "cancelled" });
    await reopened.flush();
    expect(next.seq).toBe(3);
    expect(readFileSync(path)).toEqual(
      Buffer.concat([good, Buffer.from(`${JSON.stringify(next)}\n`)]),
    );
    await reopened[Symbol.asyncDispose]();
  });

  test.each([
    ["zero-filled blocks after a crash", "\u0000".repeat(300)],
    ["a complete line without its LF", '{"type":"turn_start","seq":2,"at":"x","turnId":"t2"}'],
    ["a garbage line with its LF", "{not json\n"],
    [
      "a valid line whose seq does not follow",
      '{"type":"turn_start","seq":9,"at":"x","turnId":"t2"}\n',
    ],
  ])("a bad last line is dropped: %s", async (_name, tail) => {
    const store = setup();
    const log = await writeSession(store, [{ type: "turn_start", turnId: "t1" }]);
    appendFileSync(fileOf(log.header.id), tail);
    expect((await readSessionLog(home.path, log.header.id)).events).toEqual([...log.events]);
  });

  test("an invalid line before the last is an error naming the file and the line", async () => {
    const store = setup();
    const log = await writeSession(store, [
      { type: "turn_start", turnId: "t1" },
      userMessage("t1", "one"),
      { type: "turn_end", turnId: "t1", reason: "end_turn" },
    ]);
    const path = fileOf(log.header.id);
    const lines = readFileSync(path, "utf8").split("\n");
    lines[2] = lines[2]?.replace('"user_message"', '"user_mess"') ?? "";
    writeFileSync(path, lines.join("\n"));

    for (const attempt of [
      () => readSessionLog(home.path, log.header.id),
      () => store.open(log.header.id),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error instanceof InvalidInputError && error.message).toContain(`${path}, line 3:`);
      expect(error instanceof InvalidInputError && error.data).toEqual({ path, line: 3 });
    }
    // The failed open released the session: a repaired file opens.
    lines[2] = lines[2]?.replace('"user_mess"', '"user_message"') ?? "";
    writeFileSync(path, lines.join("\n"));
    await using reopened = await store.open(log.header.id);
    expect(reopened.events.length).toBe(3);
  });

  test("a line holding keys the log does not know reads back as its schema's output", async () => {
    const store = setup();
    const log = await writeSession(store, TURN);
    const path = fileOf(log.header.id);
    const lines = readFileSync(path, "utf8").split("\n");
    const extra = (line: string | undefined) => line?.replace(/}$/, ',"extra":{"deep":1}}') ?? "";
    lines[1] = extra(lines[1]);
    lines[5] = lines[5]?.replace('"kind":"search"', '"kind":"search","color":"red"') ?? "";
    writeFileSync(path, lines.join("\n"));
    expect((await readSessionLog(home.path, log.header.id)).events).toEqual([...log.events]);
  });

  test("an invalid line deep inside a long log is an error naming the file and the line", async () => {
    const store = setup();
    const log = await writeSession(store, Array.from({ length: 40 }, () => TURN).flat());
    const path = fileOf(log.header.id);
    const lines = readFileSync(path, "utf8").split("\n");
    lines[300] = lines[300]?.replace('"seq":', '"seq":-') ?? "";
    writeFileSync(path, lines.join("\n"));
    await expect(readSessionLog(home.path, log.header.id)).rejects.toThrow(
      `${path}, line 301: seq:`,
    );
  });

  test("a gap in seq before the last line is an error naming the line", async () => {
    const store = setup();
    const log = await writeSession(store, [
      { type: "turn_start", turnId: "t1" },
      { type: "turn_end", turnId: "t1", reason: "end_turn" },
    ]);
    const path = fileOf(log.header.id);
    writeFileSync(path, readFileSync(path, "utf8").replace('"seq":1,', '"seq":7,'));
    await expect(readSessionLog(home.path, log.header.id)).rejects.toThrow(
      `${path}, line 2: seq 7 where 1 was expected`,
    );
  });

  test.each([
    ["an empty file", ""],
    ["a header without its LF", '{"type":"header"'],
    ["a header that is not JSON", "header\n"],
    ["an event where the header belongs", '{"type":"turn_start","seq":1,"at":"x","turnId":"t"}\n'],
    ["a header of another format version", "VERSION"],
    ["a header naming another session", "OTHER"],
  ])("a bad header is an error naming line 1: %s", async (_name, content) => {
    const store = setup();
    const log = await writeSession(store, []);
    const path = fileOf(log.header.id);
    const header = (change: Record<string, unknown>) =>
      `${JSON.stringify({ ...log.header, ...change })}\n`;
    const bytes =
      content === "VERSION"
        ? header({ version: 2 })
        : content === "OTHER"
          ? header({ id: newSessionId() })
          : content;
    writeFileSync(path, bytes);
    const error = await store.open(log.header.id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error instanceof InvalidInputError && error.data).toEqual({ path, line: 1 });
  });

  test("an unknown id is NotFoundError", async () => {
    const store = setup();
    const id = newSessionId();
    await expect(store.open(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test("an invalid event is refused without using a seq or touching the file", async () => {
    const store = setup();
    await using log = await store.create({ cwd: "/w" });
    log.append({ type: "turn_start", turnId: "t1" });
    await log.flush();
    const before = readFileSync(fileOf(log.header.id));
    expect(() =>
      log.append({ type: "usage", turnId: "t1", promptTokens: Number.NaN, completionTokens: 1 }),
    ).toThrow(InvalidInputError);
    await log.flush();
    expect(readFileSync(fileOf(log.header.id))).toEqual(before);
    expect(log.append({ type: "turn_end", turnId: "t1", reason: "end_turn" }).seq).toBe(2);
  });

  test("dispose flushes, is idempotent, and later appends are a ConflictError", async () => {
    const store = setup();
    const log = await store.create({ cwd: "/w" });
    const event = log.append({ type: "turn_start", turnId: "t1" });
    await Promise.all([log[Symbol.asyncDispose](), log[Symbol.asyncDispose]()]);
    await log[Symbol.asyncDispose]();
    await log.flush();
    expect(() => log.append({ type: "turn_end", turnId: "t1", reason: "end_turn" })).toThrow(
      ConflictError,
    );
    expect((await readSessionLog(home.path, log.header.id)).events).toEqual([event]);
  });

  test("a session has one writer at a time", async () => {
    const store = setup();
    const log = await store.create({ cwd: "/w" });
    await expect(store.open(log.header.id)).rejects.toBeInstanceOf(ConflictError);
    await log[Symbol.asyncDispose]();
    const [a, b] = await Promise.allSettled([store.open(log.header.id), store.open(log.header.id)]);
    expect([a.status, b.status].sort()).toEqual(["fulfilled", "rejected"]);
    if (a.status === "fulfilled") await a.value[Symbol.asyncDispose]();
    if (b.status === "fulfilled") await b.value[Symbol.asyncDispose]();
  });

  test("create needs an absolute cwd and makes a private sessions folder", async () => {
    const store = setup();
    await expect(store.create({ cwd: "relative/dir" })).rejects.toBeInstanceOf(InvalidInputError);
    expect(await store.list()).toEqual([]);
    await using log = await store.create({ cwd: "/w" });
    expect(statSync(home.sessions).mode & 0o777).toBe(0o700);
    expect(statSync(fileOf(log.header.id)).mode & 0o777).toBe(0o600);
  });
});
