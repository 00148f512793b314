/**
 * Replay of real logs stays what it was. Each `fixtures/replay-corpus/NAME.jsonl` is a session
 * log written by the compiled dsh 0.2.0 (dac2870) over ACP against the test model server (every
 * tool intent, plans, bad arguments, images and links, settings, an error, a refusal, cancel,
 * compactions, a crash mid-command; the project path rewritten to `/home/user/project`; and
 * `tasks.jsonl`, written by the first version with subagents: a task's steps, its answer, and a
 * crash mid-task), and
 * `NAME.updates.jsonl` is what that version's replay made of it for four kinds of client.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { replayUpdates } from "../../src/acp/replay.ts";
import type { UpdateMapperOptions } from "../../src/acp/update-mapper.ts";
import { type SessionEvent, SessionHeader, sessionEventVariant } from "../../src/session/events.ts";
import { parseLog } from "../../src/session/parse-log.ts";

const DIR = join(import.meta.dir, "fixtures", "replay-corpus");

const CLIENTS: Readonly<Record<string, UpdateMapperOptions>> = {
  plain: { terminalOutput: false },
  terminal: { terminalOutput: true },
  compaction: { terminalOutput: false, compaction: true },
  both: { terminalOutput: true, compaction: true },
};

/** The lines replay makes of a log for every kind of client, as the fixture stores them. */
function replayLines(events: readonly SessionEvent[]): string[] {
  return Object.entries(CLIENTS).flatMap(([set, options]) =>
    replayUpdates(events, options).map((update) => JSON.stringify({ set, update })),
  );
}

/** The events of the corpus log `name`, read as the store reads them. */
async function corpusLog(name: string): Promise<SessionEvent[]> {
  const bytes = await Bun.file(join(DIR, `${name}.jsonl`)).bytes();
  const first = new TextDecoder().decode(bytes).split("\n", 1)[0] ?? "";
  const header = v.parse(SessionHeader, JSON.parse(first));
  return parseLog(bytes, `${name}.jsonl`, header.id).events;
}

const names = readdirSync(DIR)
  .filter((name) => /^[a-z-]+\.jsonl$/.test(name))
  .map((name) => name.slice(0, -".jsonl".length));

describe("replay of the corpus", () => {
  test("the corpus holds every kind of event a log could hold when it was written", async () => {
    const kinds = new Set((await Promise.all(names.map(corpusLog))).flat().map((e) => e.type));
    // Kinds added after 0.2.0 wrote the corpus; their replay is covered by their own suites.
    const later = new Set(["rewind", "directory"]);
    const all = sessionEventVariant()
      .options.map((option) => option.entries.type.literal)
      .filter((type) => !later.has(type));
    expect([...kinds].sort()).toEqual([...all].sort());
  });

  for (const name of names) {
    test.concurrent(`${name}: the same updates, byte for byte`, async () => {
      const expected = (await Bun.file(join(DIR, `${name}.updates.jsonl`)).text()).trimEnd();
      expect(replayLines(await corpusLog(name)).join("\n")).toBe(expected);
    });
  }
});
