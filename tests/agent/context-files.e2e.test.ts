/**
 * What dsh reads into the system prompt on its own, through the compiled binary: hostile
 * AGENTS.md files committed in a repository never reach the model, and the log names each.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn } from "../support/model-server.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-context");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const SECRETS = {
  DSH_API_KEY: "sk-dsh-api-key-0123456789",
  GITHUB_TOKEN: "ghp_githubtoken0123456789",
  AWS_SECRET_ACCESS_KEY: "aws-secret-0123456789",
};

test("AGENTS.md files that lead to secrets, pipes, binaries or out of the repository never reach the model", async () => {
  const project = rig.project("hostile-agents");
  const { cwd, base } = project;
  const home = project.env.HOME ?? "";
  // The repository, one hostile AGENTS.md per level, and an honest one where dsh starts.
  const levels = ["environ", "aws", "fifo", "binary", "outside", "honest"];
  const dirs = levels.map((_, i) => join(cwd, ...levels.slice(0, i)));
  const start = join(cwd, ...levels);
  mkdirSync(join(cwd, ".git"), { recursive: true });
  writeFileSync(join(cwd, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(start, { recursive: true });
  mkdirSync(join(home, ".aws"), { recursive: true });
  writeFileSync(join(home, ".aws", "credentials"), "aws_secret_access_key = AKIAFROMFILE\n");
  writeFileSync(join(base, "outside.md"), "text from outside the repository\n");
  const at = (i: number) => join(dirs[i] ?? "", "AGENTS.md");
  symlinkSync("/proc/self/environ", at(0));
  symlinkSync(join(home, ".aws", "credentials"), at(1));
  execFileSync("mkfifo", [at(2)]);
  writeFileSync(at(3), Buffer.from("binary rules\0\u0001\u0002"));
  symlinkSync(join(base, "outside.md"), at(4));
  writeFileSync(at(5), "Honest rules: run the tests.\n");
  writeFileSync(join(start, "AGENTS.md"), "Innermost rules.\n");
  // The user's global AGENTS.md (beside DSH_CONFIG) linked to editor settings holding the key.
  mkdirSync(join(home, ".config", "zed"), { recursive: true });
  writeFileSync(
    join(home, ".config", "zed", "settings.json"),
    `{"env":{"DSH_API_KEY":"${SECRETS.DSH_API_KEY}"}}`,
  );
  symlinkSync(join(home, ".config", "zed", "settings.json"), join(base, "AGENTS.md"));

  rig.server.script(textTurn("ok"));
  const requestsBefore = rig.server.requests.length;
  const run = await rig.start(
    ["exec", "hello"],
    { ...project, cwd: start },
    {
      env: { ...project.env, ...SECRETS },
    },
  ).done;
  expect(run.code).toBe(0);
  const request = rig.server.requests[requestsBefore];
  const body = JSON.stringify(request?.body ?? {});
  const messages = (request?.body.messages ?? []) as { role: string; content: string }[];
  const system = messages[0]?.content ?? "";
  expect(system).toContain(`Instructions from ${at(5)}:\nHonest rules: run the tests.`);
  expect(system).toContain(`Instructions from ${join(start, "AGENTS.md")}:\nInnermost rules.`);
  for (const leaked of [
    ...Object.values(SECRETS),
    "AKIAFROMFILE",
    "text from outside",
    "binary rules",
  ]) {
    expect(body).not.toContain(leaked);
  }
  expect(system.match(/Instructions from /g)?.length).toBe(2);
  // Each refused file is named in the log, with why.
  const refusals = run.stderr
    .split("\n")
    .filter((line) => line.includes("warning: instruction file refused"));
  expect(refusals.length).toBe(6);
  for (const [file, why] of [
    [join(base, "AGENTS.md"), "holds credentials"],
    [at(0), "a process's environment"],
    [at(1), "holds credentials"],
    [at(2), "named pipe"],
    [at(3), "binary"],
    [at(4), "outside"],
  ] as const) {
    const line = refusals.find((entry) => entry.includes(JSON.stringify(file)));
    expect({ file, why: line?.includes(why) }).toEqual({ file, why: true });
  }
  expect(run.stderr).not.toContain(SECRETS.DSH_API_KEY);
});
