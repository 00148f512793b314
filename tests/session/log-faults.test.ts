/**
 * What happens to a live session's log file behind the writer's back: deleted, cut short,
 * replaced. The writer notices at its next append or flush and never reports a write that is
 * not in the file.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConflictError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { type TempHome, tempHome, userMessage } from "./helpers.ts";
import { readSessionLog } from "../support/read-session.ts";

let home: TempHome;
afterEach(() => home[Symbol.dispose]());

function setup() {
  home = tempHome();
  return createSessionStore({ home: home.path, logger: silentLogger });
}

const fileOf = (id: string) => join(home.sessions, `${id}.jsonl`);

describe("session log faults", () => {
  test("a log deleted while live is written anew from memory at the next append", async () => {
    const store = setup();
    const log = await store.create({ cwd: "/w" });
    log.append({ type: "turn_start", turnId: "t1" });
    log.append(userMessage("t1", "hello"));
    await log.flush();
    rmSync(fileOf(log.header.id));
    log.append({ type: "turn_end", turnId: "t1", reason: "end_turn" });
    await log.flush();
    await log[Symbol.asyncDispose]();
    expect(await readSessionLog(home.path, log.header.id)).toEqual({
      header: log.header,
      events: [...log.events],
    });
    expect(log.events.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  test("a log deleted while idle is written anew at the next flush", async () => {
    const store = setup();
    const log = await store.create({ cwd: "/w" });
    log.append({ type: "turn_start", turnId: "t1" });
    await log.flush();
    rmSync(fileOf(log.header.id));
    await log.flush();
    expect((await readSessionLog(home.path, log.header.id)).events).toEqual([...log.events]);
    await log[Symbol.asyncDispose]();
  });

  test("a log cut mid-line while live is written anew, so it loads whole", async () => {
    const store = setup();
    const log = await store.create({ cwd: "/w" });
    log.append({ type: "turn_start", turnId: "t1" });
    log.append(userMessage("t1", "a message long enough to cut in the middle"));
    await log.flush();
    const size = readFileSync(fileOf(log.header.id)).length;
    truncateSync(fileOf(log.header.id), size - 20);
    log.append({ type: "turn_end", turnId: "t1", reason: "end_turn" });
    await log[Symbol.asyncDispose]();
    expect((await readSessionLog(home.path, log.header.id)).events).toEqual([...log.events]);
  });

  test("a log replaced by another file is not written over: appends fail until reopened", async () => {
    const store = setup();
    const log = await store.create({ cwd: "/w" });
    log.append({ type: "turn_start", turnId: "t1" });
    await log.flush();
    const path = fileOf(log.header.id);
    const copy = `${path}.copy`;
    writeFileSync(copy, readFileSync(path));
    renameSync(copy, path);
    expect(() => log.append({ type: "turn_end", turnId: "t1", reason: "end_turn" })).toThrow(
      ConflictError,
    );
    expect(log.flush()).rejects.toThrow("was replaced by another file");
    expect(log.events.map((e) => e.type)).toEqual(["turn_start"]);
    await log[Symbol.asyncDispose]();
    expect((await readSessionLog(home.path, log.header.id)).events).toEqual([...log.events]);
  });
});
