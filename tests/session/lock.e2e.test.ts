/** The session lock through the compiled binary: two `dsh exec --resume` runs on one session. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { ensureBinary } from "../support/binary.ts";
import { type ModelServer, startModelServer, textTurn } from "../support/model-server.ts";

let binary: string;
let server: ModelServer;
let root: string;

beforeAll(async () => {
  binary = await ensureBinary();
  server = await startModelServer();
  root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-lock-")));
});

afterAll(async () => {
  await server[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
});

/** Starts `dsh ARGS` in `cwd`; resolves with its exit code and output once it exits. */
function spawnDsh(args: string[], cwd: string, env: Record<string, string>) {
  const proc = Bun.spawn([binary, ...args], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const done = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).then(
    ([stdout, stderr, code]) => ({ stdout, stderr, code }),
  );
  return { pid: proc.pid, done };
}

test("a second dsh exec --resume of a session in use exits 1 naming the other process, and the log stays valid", async () => {
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(root, "config.toml"), "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    DSH_HOME: home,
    DSH_CONFIG: join(root, "config.toml"),
    DSH_BASE_URL: server.url,
    DSH_API_KEY: "test-key",
  };

  server.script(textTurn("first answer"));
  const first = await spawnDsh(["exec", "one"], cwd, env).done;
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
  const holder = spawnDsh(["exec", "--resume", id, "two"], cwd, env);
  await server.received(requestsBefore);

  const second = await spawnDsh(["exec", "--resume", id, "three"], cwd, env).done;
  expect(second).toEqual({
    stdout: "",
    stderr: `dsh: session ${id} is open in another dsh process (pid ${holder.pid})\n`,
    code: 1,
  });
  expect(server.requests.length).toBe(requestsBefore + 1);

  gate.resolve();
  const held = await holder.done;
  expect([held.code, held.stdout]).toEqual([0, "held answer\n"]);

  const { events } = await createSessionStore({ home, logger: silentLogger }).read(id);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(events.filter((event) => event.type === "turn_end").length).toBe(2);
  server.script(textTurn("third answer"));
  const third = await spawnDsh(["exec", "--resume", id, "four"], cwd, env).done;
  expect([third.code, third.stdout]).toEqual([0, "third answer\n"]);
  expect(readdirSync(join(home, "sessions"))).toEqual([`${id}.jsonl`]);
  expect(server.failures).toEqual([]);
});
