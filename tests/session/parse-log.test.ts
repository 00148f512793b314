import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { type ParsedLog, createLogParser, parseLog } from "../../src/session/parse-log.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { VALID_ID, tempHome } from "./helpers.ts";

const PATH = "/logs/s.jsonl";
const at = "2026-01-01T00:00:00.000Z";
const header = { type: "header", version: 1, id: VALID_ID, cwd: "/w", createdAt: at };
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const turnStart = (seq: number) => line({ type: "turn_start", seq, at, turnId: `t${seq}` });
// Multi-byte characters, so some cuts fall inside a character.
const text = (seq: number) =>
  line({ type: "assistant_text", seq, at, turnId: "t1", step: 1, text: `é✓𝄞 ${seq}\u2028` });

/** Logs of every kind a reader meets, as bytes. */
const LOGS: [string, string][] = [
  ["a clean log", line(header) + turnStart(1) + text(2) + turnStart(3)],
  ["a log without events", line(header)],
  ["a torn last line", `${line(header)}${turnStart(1)}{"type":"turn_st`],
  ["a bad last line with its LF", `${line(header)}${turnStart(1)}{nope\n`],
  ["zero-filled blocks at the end", `${line(header)}${text(1)}${"\u0000".repeat(100)}`],
  ["a bad line before the last", `${line(header)}${turnStart(1)}{nope\n${turnStart(2)}`],
  ["a bad line followed by a torn one", `${line(header)}${turnStart(1)}{nope\n{"ty`],
  ["a seq gap before the last line", line(header) + turnStart(1) + turnStart(5) + turnStart(6)],
  ["a header without its LF", JSON.stringify(header)],
  ["a header naming another session", line({ ...header, id: "other" }) + turnStart(1)],
  ["an empty file", ""],
];

type Outcome = { log: ParsedLog } | { error: string };

function outcome(read: () => ParsedLog): Outcome {
  try {
    return { log: read() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Pushes `bytes` in pieces of `size`, each in a buffer that is overwritten afterwards. */
function readInPieces(bytes: Uint8Array, size: number): ParsedLog {
  const parser = createLogParser(PATH, VALID_ID);
  const reused = new Uint8Array(size);
  for (let start = 0; start < bytes.byteLength; start += size) {
    const piece = bytes.subarray(start, start + size);
    reused.set(piece);
    parser.push(reused.subarray(0, piece.byteLength));
    reused.fill(0x7b);
  }
  return parser.finish();
}

describe("reading a log piece by piece", () => {
  test.each(LOGS)("gives what reading it whole gives: %s", (_name, content) => {
    const bytes = new TextEncoder().encode(content);
    const whole = outcome(() => parseLog(bytes, PATH, VALID_ID));
    for (const size of [1, 2, 3, 5, 16, 61, 4096]) {
      expect({ size, ...outcome(() => readInPieces(bytes, size)) }).toEqual({ size, ...whole });
    }
  });

  test("reading whole keeps the good prefix and names the first bad line", () => {
    const read = (content: string) =>
      outcome(() => parseLog(new TextEncoder().encode(content), PATH, VALID_ID));
    const torn = read(`${line(header)}${turnStart(1)}{"type":"turn_st`);
    expect("log" in torn && torn.log.events.map((e) => e.seq)).toEqual([1]);
    expect("log" in torn && torn.log.fileLength - torn.log.validLength).toBe(16);
    expect(read(`${line(header)}${turnStart(1)}{nope\n${turnStart(2)}`)).toEqual({
      error: expect.stringContaining(`corrupt session log ${PATH}, line 3: not JSON`),
    });
  });

  test("bytes that are not UTF-8 name their line; at the end they are a torn line", () => {
    const bytes = (...parts: (string | number[])[]) =>
      Buffer.concat(
        parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))),
      );
    // 0xff never appears in UTF-8, and it sits inside a JSON string here.
    const broken = ['{"type":"turn_start","seq":2,"at":"', [0xff], '","turnId":"t"}\n'];
    const middle = bytes(line(header), turnStart(1), ...broken, turnStart(3));
    const last = bytes(line(header), turnStart(1), ...broken);
    for (const size of [7, 4096]) {
      expect(outcome(() => readInPieces(middle, size))).toEqual({
        error: expect.stringContaining(`corrupt session log ${PATH}, line 3: not JSON`),
      });
      const torn = outcome(() => readInPieces(last, size));
      expect("log" in torn && torn.log.events.map((e) => e.seq)).toEqual([1]);
    }
  });

  test("a byte-order mark at a line's start is dropped, one per line", () => {
    const content = `\ufeff${line(header)}\ufeff${turnStart(1)}${turnStart(2)}\ufeff${turnStart(3)}`;
    const bytes = new TextEncoder().encode(content);
    for (const size of [5, 4096]) {
      const read = outcome(() => readInPieces(bytes, size));
      expect("log" in read && read.log.events.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect("log" in read && read.log.validLength).toBe(bytes.byteLength);
    }
    const twice = new TextEncoder().encode(
      `${line(header)}\ufeff\ufeff${turnStart(1)}${turnStart(2)}`,
    );
    expect(outcome(() => readInPieces(twice, 4096))).toEqual({
      error: expect.stringContaining("line 2: not JSON"),
    });
  });

  test("the store reads a log larger than its read size", async () => {
    using home = tempHome();
    const store = createSessionStore({ home: home.path, logger: silentLogger });
    const big = "x".repeat(700_000);
    const id = await (async () => {
      await using log = await store.create({ cwd: "/w" });
      for (let i = 0; i < 4; i++)
        log.append({ type: "reasoning", turnId: "t", step: i, text: big });
      return log.header.id;
    })();
    {
      await using read = await store.open(id);
      expect(read.events.map((e) => e.type === "reasoning" && e.text.length)).toEqual([
        700_000, 700_000, 700_000, 700_000,
      ]);
    }
    // A torn tail past the first read is still dropped.
    writeFileSync(join(home.sessions, `${id}.jsonl`), '{"type":"reas', { flag: "a" });
    await using again = await store.open(id);
    expect(again.events.length).toBe(4);
  });
});
