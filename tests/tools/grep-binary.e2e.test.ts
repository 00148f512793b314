/**
 * grep through the compiled binary: its matching runs in a worker thread, which must start
 * inside `bun build --compile` output exactly as it does from source.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as v from "valibot";
import { ensureBinary } from "../support/binary.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import type { ModelServer } from "../support/model-server.ts";

let binary: string;
let server: ModelServer;
let base: string;

beforeAll(async () => {
  binary = await ensureBinary();
  server = await startModelServer();
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "dsh-grep-bin-")));
});

afterAll(async () => {
  await server[Symbol.asyncDispose]();
  fs.rmSync(base, { recursive: true, force: true });
});

const ToolMessage = v.object({ role: v.literal("tool"), content: v.string() });

test("dsh exec runs grep in the compiled binary and hands the matches to the model", async () => {
  const cwd = path.join(base, "project");
  fs.mkdirSync(path.join(cwd, "src"), { recursive: true });
  fs.writeFileSync(path.join(cwd, "src", "a.ts"), "const x = 1;\nfunction loadAll() {}\n");
  fs.writeFileSync(path.join(cwd, "notes.md"), "nothing here\n");
  fs.writeFileSync(path.join(base, "config.toml"), "");
  server.script(
    toolTurn([{ id: "call_g", name: "grep", args: { pattern: "function\\s+load" } }]),
    textTurn("found it"),
  );
  const proc = Bun.spawn([binary, "exec", "where is loadAll?"], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: path.join(base, "user"),
      DSH_HOME: path.join(base, "state"),
      DSH_CONFIG: path.join(base, "config.toml"),
      DSH_BASE_URL: server.url,
      DSH_API_KEY: "test-key",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect({ code, stdout, failures: server.failures }).toEqual({
    code: 0,
    stdout: "found it\n",
    failures: [],
  });
  const answer = await server.received(1);
  const messages = v.parse(v.array(v.unknown()), answer.body.messages);
  const results = messages.flatMap((message) => {
    const tool = v.safeParse(ToolMessage, message);
    return tool.success ? [tool.output.content] : [];
  });
  expect({ results, stderr }).toMatchObject({ results: ["src/a.ts:2:function loadAll() {}"] });
});
