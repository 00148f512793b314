import { describe, expect, test } from "bun:test";
import { HIGH_WATER_CHARS, createLineWriter } from "../../src/acp/line-writer.ts";

/** A sink that keeps each chunk it is handed; `gate` holds its writes until opened. */
function recordingSink(gate?: Promise<void>) {
  const chunks: string[] = [];
  const firstWrite = Promise.withResolvers<void>();
  const decoder = new TextDecoder();
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      chunks.push(decoder.decode(chunk));
      firstWrite.resolve();
      await gate;
    },
  });
  return { chunks, firstWrite: firstWrite.promise, writer: stream.getWriter() };
}

describe("line writer", () => {
  test("bursts go out in order, each line with its LF, one write per burst at most", async () => {
    const sink = recordingSink();
    const lines = createLineWriter(sink.writer, () => {
      throw new Error("no write fails here");
    });
    const sent = Array.from({ length: 5_000 }, (_, i) => `{"n":${i},"s":"\u2028"}`);
    const bursts = 20;
    const size = sent.length / bursts;
    for (let i = 0; i < bursts; i++) await lines.writeAll(sent.slice(i * size, (i + 1) * size));
    await lines.write("alone");
    await lines.drained();
    expect(sink.chunks.join("")).toBe([...sent, "alone"].map((line) => `${line}\n`).join(""));
    expect(sink.chunks.length).toBeLessThanOrEqual(bursts + 1);
  });

  test("past the high-water mark, a write waits until the queue went out", async () => {
    const gate = Promise.withResolvers<void>();
    const sink = recordingSink(gate.promise);
    const lines = createLineWriter(sink.writer, () => {
      throw new Error("no write fails here");
    });
    const line = "x".repeat(HIGH_WATER_CHARS / 8);
    const early = Array.from({ length: 4 }, () => lines.write(line));
    await Promise.all(early);
    // The first write is held by the sink: what is queued behind it now crosses the mark.
    await sink.firstWrite;
    let late: Promise<void> = Promise.resolve();
    for (let i = 0; i < 24; i++) late = lines.write(line);
    let resolved = false;
    const waiting = late.then(() => {
      resolved = true;
    });
    await Promise.resolve();
    expect(resolved).toBe(false);
    gate.resolve();
    await waiting;
    await lines.drained();
    expect(sink.chunks.join("").length).toBe(28 * (line.length + 1));
  });

  test("a failed write is reported once at once; later writes reject, drained resolves", async () => {
    const stream = new WritableStream<Uint8Array>({
      write() {
        throw new Error("EPIPE");
      },
    });
    const failures: unknown[] = [];
    const lines = createLineWriter(stream.getWriter(), (error) => failures.push(error));
    await lines.write("first");
    await lines.drained();
    expect(failures.map(String)).toEqual(["Error: EPIPE"]);
    await expect(lines.write("second")).rejects.toThrow("EPIPE");
    await lines.drained();
    expect(failures.length).toBe(1);
  });

  test("a stream that errors after taking the last write is reported, with no write left", async () => {
    let controller: WritableStreamDefaultController | undefined;
    const taken = Promise.withResolvers<void>();
    const stream = new WritableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      write() {
        taken.resolve();
      },
    });
    const failed = Promise.withResolvers<unknown>();
    const lines = createLineWriter(stream.getWriter(), failed.resolve);
    await lines.write("last");
    await taken.promise;
    controller?.error(new Error("EPIPE"));
    expect(String(await failed.promise)).toBe("Error: EPIPE");
    await expect(lines.write("after")).rejects.toThrow("EPIPE");
  });
});
