/**
 * Broken framing on `dsh acp`'s stdin: every bad line gets a JSON-RPC error (or, past the size
 * limit, a clean close), stdout stays pure JSON-RPC, and the connection goes on serving.
 */
import { describe, expect, test } from "bun:test";
import { endReasons, openTurns, readStrictLog } from "./checks.ts";
import { createProject } from "./project.ts";
import { startSession } from "./session-rig.ts";
import { type Wire, responseTo, spawnRawAcp } from "./raw-acp.ts";

const errorCode = (m: Wire) => m.error?.code;
const nullIdErrors = (messages: readonly Wire[]) =>
  messages.filter((m) => m.id === null && m.error !== undefined).map(errorCode);

describe.concurrent("dsh acp framing", () => {
  test("a non-JSON line gets a parse error with a null id, and the next request is served", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.write('this is not json\n{"jsonrpc":"2.0","id":1,\n');
    await dsh.initialize();
    const list = await dsh.call("session/list", {});
    expect(list.result).toEqual({ sessions: [] });
    expect(nullIdErrors(dsh.messages)).toEqual([-32700, -32700]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a batch is refused as a whole with one -32600, none of its requests runs", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const batch = [
      { jsonrpc: "2.0", id: 7, method: "session/list", params: {} },
      {
        jsonrpc: "2.0",
        id: 8,
        method: "session/new",
        params: { cwd: project.cwd, mcpServers: [] },
      },
    ];
    await dsh.write(`${JSON.stringify(batch)}\n[]\n`);
    await dsh.call("session/list", {});
    expect(nullIdErrors(dsh.messages)).toEqual([-32600, -32600]);
    expect(dsh.messages.filter((m) => m.id === 7 || m.id === 8)).toEqual([]);
    expect(dsh.messages.find((m) => m.id === null)?.error?.message).toContain(
      "batches are not supported",
    );
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("JSON scalars, a message without jsonrpc and a non-string method each get -32600", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const bad = [
      "42",
      '"session/list"',
      "null",
      "true",
      JSON.stringify({ id: 3, method: "session/list", params: {} }),
      JSON.stringify({ jsonrpc: "1.0", id: 4, method: "session/list", params: {} }),
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: 42, params: {} }),
      JSON.stringify({ jsonrpc: "2.0", id: 6, method: null }),
      JSON.stringify({ jsonrpc: "2.0", id: { nested: true }, method: "session/list", params: {} }),
    ];
    await dsh.write(`${bad.join("\n")}\n`);
    await dsh.call("session/list", {});
    expect(nullIdErrors(dsh.messages)).toEqual(bad.map(() => -32600));
    // None of them was taken for a request: no response carries their ids.
    expect(dsh.messages.filter((m) => [3, 4, 5, 6].includes(Number(m.id)))).toEqual([]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a flood of 5,000 bad lines in one write gets 5,000 errors, then the next request is served", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    await dsh.write("{oops\n".repeat(5_000));
    expect((await dsh.call("session/list", {})).result).toEqual({ sessions: [] });
    expect(nullIdErrors(dsh.messages)).toEqual(Array.from({ length: 5_000 }, () => -32700));
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("CRLF endings and blank lines are read as the same requests", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const request = (id: number) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "session/list", params: {} });
    await dsh.write(`${request(1)}\r\n\r\n   \n${request(2)}\r\n\n\t\r\n${request(3)}\r\n`);
    const replies = await Promise.all([1, 2, 3].map((id) => dsh.waitFor(responseTo(id))));
    expect(replies).toEqual(
      [1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, result: { sessions: [] } })),
    );
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("invalid UTF-8 inside a string is read as U+FFFD; outside one it is a parse error", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const encoder = new TextEncoder();
    const line = (parts: (string | number[])[]) =>
      Buffer.concat(
        parts.map((p) => (typeof p === "string" ? encoder.encode(p) : Uint8Array.from(p))),
      );
    // A list filtered by a cwd holding bytes that are not UTF-8: no session matches it.
    await dsh.write(
      line([
        '{"jsonrpc":"2.0","id":1,"method":"session/list","params":{"cwd":"/',
        [0xff, 0xfe, 0xc3],
        '"}}\n',
      ]),
    );
    await dsh.write(line(['{"jsonrpc":"2.0","id":2,', [0xff], '"method":"session/list"}\n']));
    const reply = await dsh.waitFor(responseTo(1));
    await dsh.call("session/list", {});
    expect(reply.result).toEqual({ sessions: [] });
    expect(nullIdErrors(dsh.messages)).toEqual([-32700]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("requests pipelined before initialize is answered are refused; later ones are served", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    const request = (id: number, method: string, params: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method, params });
    const early = Array.from({ length: 20 }, (_, i) =>
      request(i + 1, i % 2 === 0 ? "session/list" : "session/new", {
        cwd: project.cwd,
        mcpServers: [],
      }),
    );
    const late = Array.from({ length: 20 }, (_, i) => request(i + 101, "session/list", {}));
    await dsh.write(
      `${[...early, request(0, "initialize", { protocolVersion: 1 }), ...late].join("\n")}\n`,
    );
    await Promise.all(
      [...early, ...late].map((_, i) => dsh.waitFor(responseTo(i < 20 ? i + 1 : i - 20 + 101))),
    );
    const init = await dsh.waitFor(responseTo(0));
    expect(init.result).toMatchObject({ protocolVersion: 1 });
    const earlyCodes = dsh.messages
      .filter((m) => typeof m.id === "number" && m.id >= 1 && m.id <= 20)
      .map(errorCode);
    expect(earlyCodes).toEqual(early.map(() => -32600));
    expect(dsh.messages.find((m) => m.id === 1)?.error?.message).toContain(
      "must be initialized before 'session/list'",
    );
    // A request that arrived after `initialize` but before its answer may be refused too; each
    // gets exactly one response either way.
    const lateReplies = dsh.messages.filter((m) => typeof m.id === "number" && m.id > 100);
    expect(lateReplies).toHaveLength(20);
    for (const reply of lateReplies) expect(reply.error?.code ?? "ok").toBeOneOf([-32600, "ok"]);
    expect((await dsh.call("session/list", {})).result).toEqual({ sessions: [] });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });
});

// Tens of megabytes through a pipe each: one at a time, so they do not starve each other.
describe("dsh acp framing of large and deep lines", () => {
  test("a line over the 32 MiB limit gets one -32600 and is skipped; the running prompt and the next request go on", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    const release = Promise.withResolvers<void>();
    model.script({
      respond: {
        stream: [
          { text: "working" },
          { until: release.promise },
          { text: " done" },
          { finish: "stop" },
        ],
      },
    });
    const prompt = await dsh.prompt(sessionId, "long job");
    await model.received(0);
    const huge = `{"jsonrpc":"2.0","id":1,"method":"session/list","params":{"pad":"${"a".repeat(33 * 1024 * 1024)}"}}\n`;
    await dsh.write(huge);
    expect((await dsh.call("session/list", {})).result).toMatchObject({
      sessions: [{ sessionId }],
    });
    release.resolve();
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "end_turn" });
    expect(dsh.messages.filter((m) => m.id === 1)).toEqual([]);
    const refusals = dsh.messages.filter((m) => m.id === null && m.error !== undefined);
    expect(refusals.map((m) => m.error)).toEqual([
      { code: -32600, message: "Invalid request: a message is larger than 33554432 bytes" },
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect(endReasons(events)).toEqual(["end_turn"]);
  });

  test("a line nested 40,000 deep gets one short -32600 with a null id, and dsh keeps serving", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const depth = 40_000;
    const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const deepArray = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const deepRequest = `{"jsonrpc":"2.0","id":77,"method":"session/list","params":{"cwd":${deep}}}`;
    await dsh.write(`${deep}\n${deepArray}\n${deepRequest}\n`);
    // Written past the rig, which would parse the line itself: millions of levels take seconds.
    dsh.proc.stdin.write(`${"[".repeat(3_000_000)}${"]".repeat(3_000_000)}\n`);
    await dsh.proc.stdin.flush();
    expect((await dsh.call("session/list", {})).result).toEqual({ sessions: [] });
    const replies = dsh.lines.slice(1, 5);
    for (const line of replies) expect(line.length).toBeLessThan(200);
    expect(dsh.messages.slice(1, 5).map((m) => [m.id, m.error?.code])).toEqual([
      [null, -32600],
      [null, -32600],
      [77, -32600],
      [null, -32600],
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("an invalid message is refused without being echoed: 5 MB in, a short line out", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const pad = "x".repeat(5 * 1024 * 1024);
    const bad = [
      JSON.stringify({ jsonrpc: "2.0", pad }),
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "session/prompt", params: { pad } }),
      JSON.stringify({ jsonrpc: "2.0", id: 10, method: "no/such/method", params: { pad } }),
      JSON.stringify({ jsonrpc: "1.0", id: 11, method: pad }),
      JSON.stringify({ jsonrpc: "2.0", id: pad, method: "session/list", params: {} }),
      JSON.stringify({ jsonrpc: "2.0", id: 12, method: pad, params: {} }),
    ];
    await dsh.write(`${bad.join("\n")}\n`);
    expect((await dsh.call("session/list", {})).result).toEqual({ sessions: [] });
    const replies = dsh.lines.slice(1, 1 + bad.length);
    expect(replies.map((line) => line.length < 4096)).toEqual(bad.map(() => true));
    expect(dsh.messages.slice(1, 1 + bad.length).map((m) => m.error?.code)).toEqual([
      -32600, -32602, -32601, -32600, -32600, -32601,
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });
});

describe("dsh acp at stdin EOF", () => {
  const line = (id: number, method: string, params: unknown) =>
    `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
  const init = line(1, "initialize", { protocolVersion: 1 });

  test("initialize followed at once by EOF is answered", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.write(init);
    expect(await dsh.closeStdin()).toBe(0);
    expect((await dsh.waitFor(responseTo(1))).result).toMatchObject({ protocolVersion: 1 });
    expect(dsh.problems).toEqual([]);
  });

  test("a last request without its newline is answered at EOF", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.write(`${init}${line(2, "session/list", {}).trimEnd()}`);
    expect(await dsh.closeStdin()).toBe(0);
    expect((await dsh.waitFor(responseTo(2))).result).toEqual({ sessions: [] });
    expect(dsh.problems).toEqual([]);
  });

  test("session/new followed at once by EOF is answered and its log is written", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.write(`${init}${line(2, "session/new", { cwd: project.cwd, mcpServers: [] })}`);
    expect(await dsh.closeStdin()).toBe(0);
    const reply = await dsh.waitFor(responseTo(2));
    const sessionId = (reply.result as { sessionId: string }).sessionId;
    expect(await readStrictLog(project.logPath(sessionId))).toEqual([]);
    expect(dsh.problems).toEqual([]);
  });

  test("a prompt followed at once by EOF is answered cancelled and logged so", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    const never = Promise.withResolvers<void>();
    model.script({ respond: { stream: [{ text: "working" }, { until: never.promise }] } });
    const prompt = await dsh.prompt(sessionId, "long job");
    expect(await dsh.closeStdin()).toBe(0);
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "cancelled" });
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["cancelled"],
      open: [],
    });
    expect(dsh.problems).toEqual([]);
  });

  test("five requests written with the EOF get five answers", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    const requests = [2, 3, 4, 5, 6].map((id) => line(id, "session/list", {}));
    await dsh.write(`${init}${requests.join("")}`);
    expect(await dsh.closeStdin()).toBe(0);
    const answered = dsh.messages.filter((m) => typeof m.id === "number" && m.id >= 2);
    expect(answered.map((m) => m.result)).toEqual(requests.map(() => ({ sessions: [] })));
    expect(dsh.problems).toEqual([]);
  });
});
