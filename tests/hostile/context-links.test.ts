/**
 * Files that reach a model request without a tool call, through the compiled binary: a cloned
 * repository commits `AGENTS.md` files that lead to its secrets (`.env`, `.git/config` with a
 * token in the remote URL, a bare repository's config, a hard link, a private key), and a
 * prompt names files whose names hide a `.env` or git's files. None of their text reaches the
 * model; each is named in a warning. A `.env` the user names itself is the user's choice.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { git, initRepo } from "../exec/git-support.ts";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-context-links");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const ENV_SECRET = "sk-dotenv-0123456789";
const TOKEN = "ghp_remotetoken0123456789";
const LOCAL_SECRET = "sk-dotenv-local-0123456789";
const BARE_TOKEN = "ghp_baretoken0123456789";
const KEY =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";

test("AGENTS.md files that lead to a repository's secrets never reach the model, and each is named", async () => {
  const project = rig.project("agents");
  const { cwd } = project;
  initRepo(cwd);
  git(cwd, ["remote", "add", "origin", `https://x-access-token:${TOKEN}@github.com/o/r.git`]);
  writeFileSync(join(cwd, ".env"), `API_KEY=${ENV_SECRET}\n`);
  writeFileSync(join(cwd, ".env.local"), `API_KEY=${LOCAL_SECRET}\n`);
  git(join(cwd, ".."), ["init", "-q", "--bare", join(cwd, "vendor.git")]);
  git(join(cwd, "vendor.git"), ["config", "remote.origin.url", `https://u:${BARE_TOKEN}@x/y`]);
  const levels = ["a", "b", "c", "d", "e"];
  const dirs = [cwd, ...levels.map((_, i) => join(cwd, ...levels.slice(0, i + 1)))];
  mkdirSync(dirs.at(-1) ?? "", { recursive: true });
  const at = (i: number) => join(dirs[i] ?? "", "AGENTS.md");
  symlinkSync(".env", at(0));
  symlinkSync("../.git/config", at(1));
  linkSync(join(cwd, ".env.local"), at(2));
  symlinkSync(join(cwd, "vendor.git", "config"), at(3));
  writeFileSync(at(4), `Deploy with this key:\n${KEY}`);
  writeFileSync(at(5), "Honest rules: run the tests.\n");
  const before = rig.server.requests.length;
  rig.server.script(textTurn("ok"));
  const run = await rig.run(["exec", "hello"], { ...project, cwd: dirs.at(-1) ?? cwd });
  expect(run.code).toBe(0);
  const body = JSON.stringify(rig.server.requests[before]?.body ?? {});
  const leaked = [ENV_SECRET, TOKEN, LOCAL_SECRET, BARE_TOKEN, "PRIVATE KEY"].filter((secret) =>
    body.includes(secret),
  );
  expect(leaked).toEqual([]);
  expect(body).toContain("Honest rules: run the tests.");
  for (let i = 0; i < 5; i++) expect(run.stderr).toContain(`dsh left out ${at(i)}`);
  expect(run.stderr).toContain(`it leads to ${join(cwd, ".env")}, a .env file`);
  expect(run.stderr).toContain("one of git's own files");
  expect(run.stderr).toContain("it has 2 hard links");
  expect(run.stderr).toContain("it holds a private key");
});

test("a prompt's links and embedded text that disguise a .env or git's files stay out; a .env named itself goes in", async () => {
  await using model = await startModelServer();
  await using dsh = await spawnAcp({ baseUrl: model.url });
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
  const { sessionId } = await dsh.agent.request(acp.methods.agent.session.new, {
    cwd: dsh.cwd,
    mcpServers: [],
  });
  initRepo(dsh.cwd);
  git(dsh.cwd, ["remote", "add", "origin", `https://x-access-token:${TOKEN}@github.com/o/r.git`]);
  writeFileSync(join(dsh.cwd, ".env"), `API_KEY=${ENV_SECRET}\n`);
  symlinkSync(".env", join(dsh.cwd, "notes.md"));
  symlinkSync(".env", join(dsh.cwd, ".env.example"));
  symlinkSync(".git", join(dsh.cwd, "docs"));
  const uri = (name: string) => `file://${dsh.cwd}/${name}`;
  model.script(textTurn("seen"));
  await dsh.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [
      { type: "text", text: "look" },
      { type: "resource_link", uri: uri("notes.md"), name: "notes.md" },
      { type: "resource_link", uri: uri(".env.example"), name: ".env.example" },
      { type: "resource_link", uri: uri("docs/config"), name: "config" },
      // Text the editor read itself, through the link.
      { type: "resource", resource: { uri: uri("notes.md"), text: `API_KEY=${ENV_SECRET}\n` } },
    ],
  });
  const first = JSON.stringify(model.requests[0]?.body.messages ?? []);
  expect([first.includes(ENV_SECRET), first.includes(TOKEN)]).toEqual([false, false]);
  expect(first).toContain(`[notes.md](${uri("notes.md")})`);
  const notices = dsh.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  expect(JSON.stringify(notices)).toContain(
    `dsh left out the text of ${join(dsh.cwd, "notes.md")}`,
  );
  // The user names the .env itself: that is their choice.
  model.script(textTurn("seen too"));
  await dsh.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [
      { type: "text", text: "and this" },
      { type: "resource_link", uri: uri(".env"), name: ".env" },
    ],
  });
  expect(JSON.stringify(model.requests[1]?.body.messages ?? [])).toContain(ENV_SECRET);
  expect(dsh.problems).toEqual([]);
});
