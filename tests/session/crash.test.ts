import { afterEach, expect, test } from "bun:test";
import { readFileSync, watch } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { type TempHome, tempHome } from "./helpers.ts";
import { readSessionLog } from "../support/read-session.ts";

let home: TempHome;
afterEach(() => home[Symbol.dispose]());

const WRITER = join(import.meta.dir, "fixtures", "append-forever.ts");
const READY_AFTER = 6;

/** Reads the child's stdout up to its first line. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    const end = text.indexOf("\n");
    if (end >= 0) return text.slice(0, end);
  }
  return text;
}

/** Resolves at the next change to `path`. */
function nextChange(path: string): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  const watcher = watch(path, () => {
    watcher.close();
    resolve();
  });
  return promise;
}

test("a writer killed with SIGKILL while appending leaves a log that reopens and continues", async () => {
  home = tempHome();
  await using child = Bun.spawn(["bun", WRITER, home.path, String(READY_AFTER), "262144"], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const line = await firstLine(child.stdout);
  const id = line.match(/^ready ([0-9a-f-]+)$/)?.[1];
  expect(id).toBeDefined();
  if (id === undefined) return;
  const path = join(home.sessions, `${id}.jsonl`);

  // Kill while the writer is busy appending past the flushed prefix.
  await nextChange(path);
  child.kill("SIGKILL");
  expect(await child.exited).not.toBe(0);
  expect(child.signalCode).toBe("SIGKILL");

  const store = createSessionStore({ home: home.path, logger: silentLogger });
  await using log = await store.open(id);
  const seqs = log.events.map((event) => event.seq);
  expect(seqs.length).toBeGreaterThanOrEqual(READY_AFTER);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));

  const before = readFileSync(path);
  const kept = before.subarray(0, before.lastIndexOf(0x0a) + 1);
  const next = log.append({ type: "turn_end", turnId: "t-final", reason: "cancelled" });
  await log.flush();
  expect(next.seq).toBe(seqs.length + 1);
  // Torn bytes the kill left behind are gone; the good prefix is untouched.
  expect(readFileSync(path)).toEqual(
    Buffer.concat([kept, Buffer.from(`${JSON.stringify(next)}\n`)]),
  );
  expect((await readSessionLog(home.path, id)).events.map((event) => event.seq)).toEqual([
    ...seqs,
    next.seq,
  ]);
});
