/** The session lock through the compiled binary: two `dsh exec --resume` runs on one session. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn } from "../support/model-server.ts";
import { readSessionLog } from "../support/read-session.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-lock");
});

afterAll(async () => {
  await rig[Symbol.asyncDispose]();
});

test("a second dsh exec --resume of a session in use exits 1 naming the other process, and the log stays valid", async () => {
  const project = rig.project("resumed");
  const { home } = project;
  const spawnDsh = (args: string[]) => rig.start(args, project);
  const server = rig.server;

  server.script(textTurn("first answer"));
  const first = await spawnDsh(["exec", "one"]).done;
  expect(first.code).toBe(0);
  const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";

  const gate = Promise.withResolvers<void>();
  server.script({
    respond: {
      stream: [
        { text: "held " },
        { until: gate.promise },
        { text: "answer" },
        { finish: "stop" },
        { usage: { prompt: 10, completion: 5 } },
        { done: true },
      ],
    },
  });
  const requestsBefore = server.requests.length;
  const holder = spawnDsh(["exec", "--resume", id, "two"]);
  await server.received(requestsBefore);

  const second = await spawnDsh(["exec", "--resume", id, "three"]).done;
  expect(second).toEqual({
    stdout: "",
    stderr: `dsh: session ${id} is open in another dsh process (pid ${holder.pid})\n`,
    code: 1,
  });
  expect(server.requests.length).toBe(requestsBefore + 1);

  gate.resolve();
  const held = await holder.done;
  expect([held.code, held.stdout]).toEqual([0, "held answer\n"]);

  const { events } = await readSessionLog(home, id);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(events.filter((event) => event.type === "turn_end").length).toBe(2);
  server.script(textTurn("third answer"));
  const third = await spawnDsh(["exec", "--resume", id, "four"]).done;
  expect([third.code, third.stdout]).toEqual([0, "third answer\n"]);
  expect(readdirSync(join(home, "sessions"))).toEqual([`${id}.jsonl`]);
  expect(server.failures).toEqual([]);
});
