/**
 * `dsh doctor` through the compiled binary against real HTTP endpoints: each check, the
 * endpoint asked for real, and a non-zero exit with a fix line when anything is broken.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliProject, type CliRig, startCliRig } from "../support/cli.ts";

let rig: CliRig;
beforeAll(async () => {
  rig = await startCliRig("dsh-doctor");
});
afterAll(async () => {
  await rig[Symbol.asyncDispose]();
});

/** A real endpoint on port 0 answering with `fetch`; stopped when the test is done. */
function endpoint(fetch: (request: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  return {
    url: `http://127.0.0.1:${server.port}`,
    [Symbol.asyncDispose]: () => server.stop(true),
  };
}

const modelList = (...ids: string[]) =>
  Response.json({ object: "list", data: ids.map((id) => ({ id, object: "model" })) });

function doctor(project: CliProject, url: string, env: Record<string, string> = {}) {
  return rig.run(["doctor"], project, { env: { ...project.env, DSH_BASE_URL: url, ...env } });
}

const line = (stdout: string, name: string) =>
  stdout.split("\n").find((l) => l.slice(2).startsWith(`${name}:`)) ?? "";

test("a working setup passes every check, asks the endpoint about the model, and never prints the key", async () => {
  const project = rig.project("ok");
  let auth = "";
  await using server = endpoint((request) => {
    auth = request.headers.get("authorization") ?? "";
    return modelList("deepseek-flash", "deepseek-pro");
  });
  const run = await doctor(project, server.url);
  expect(auth).toBe("Bearer test-key");
  expect(line(run.stdout, "api key")).toBe(
    "✓ api key: from the environment (DSH_API_KEY or DEEPSEEK_API_KEY)",
  );
  expect(line(run.stdout, "endpoint")).toBe(`✓ endpoint: ${server.url} answers`);
  expect(line(run.stdout, "model")).toBe(`✓ model: deepseek-flash (served by ${server.url})`);
  expect(line(run.stdout, "state dir")).toBe(`✓ state dir: ${project.home} writable`);
  expect(run.stdout).toMatch(/[✓✗] sandbox: /);
  expect(run.stdout).not.toContain("test-key");
  expect(run.code).toBe(run.stdout.includes("✗") ? 1 : 0);
});

test("an endpoint answering 404 with an HTML page is a wrong base URL, exit 1", async () => {
  const project = rig.project("html");
  await using server = endpoint(
    () =>
      new Response("<!doctype html><title>Not Found</title>", {
        status: 404,
        headers: { "content-type": "text/html" },
      }),
  );
  const run = await doctor(project, server.url);
  expect(run.code).toBe(1);
  expect(line(run.stdout, "endpoint")).toBe(
    `✗ endpoint: ${server.url} answered HTTP 404 with an HTML page: not an OpenAI-compatible API; DSH_BASE_URL should be the URL that /chat/completions hangs off (for DeepSeek https://api.deepseek.com)`,
  );
});

test("a rejected key (401) is named with its fix, exit 1", async () => {
  const project = rig.project("401");
  await using server = endpoint(() =>
    Response.json({ error: { message: "key expired" } }, { status: 401 }),
  );
  const run = await doctor(project, server.url);
  expect(run.code).toBe(1);
  expect(line(run.stdout, "endpoint")).toBe(
    `✗ endpoint: ${server.url} rejected the API key (HTTP 401: key expired); run \`dsh login\` to store a new one, or set DSH_API_KEY`,
  );
  expect(run.stdout).not.toContain("test-key");
});

test("a model the endpoint does not serve is named with what it lists, exit 1", async () => {
  const project = rig.project("unknown-model");
  await using server = endpoint((request) =>
    new URL(request.url).pathname === "/models"
      ? modelList("other-a", "other-b")
      : Response.json({ error: { message: "Model Not Exist" } }, { status: 400 }),
  );
  const run = await doctor(project, server.url, { DSH_MODEL: "my-model" });
  expect(run.code).toBe(1);
  expect(line(run.stdout, "endpoint")).toBe(`✓ endpoint: ${server.url} answers`);
  expect(line(run.stdout, "model")).toBe(
    "✗ model: my-model: the endpoint rejected it (Model Not Exist); it lists other-a, other-b; pick one with DSH_MODEL or `model` in the config file",
  );
});

test("an endpoint without a models list is asked with one token; a model it takes passes", async () => {
  const project = rig.project("no-list");
  const bodies: unknown[] = [];
  await using server = endpoint(async (request) => {
    if (new URL(request.url).pathname === "/models") return new Response("", { status: 404 });
    bodies.push(await request.json());
    return Response.json({ choices: [{ message: { role: "assistant", content: "p" } }] });
  });
  const run = await doctor(project, server.url, { DSH_MODEL: "local-model" });
  expect(line(run.stdout, "model")).toBe(`✓ model: local-model (served by ${server.url})`);
  expect(bodies).toEqual([
    {
      model: "local-model",
      messages: [{ role: "user", content: "ping" }],
      max_tokens: 1,
      stream: false,
    },
  ]);
});

test("a missing key and a sandbox turned off are each named with a fix, exit 1", async () => {
  const project = rig.project("broken");
  const { DSH_API_KEY: _, ...env } = project.env;
  await using server = endpoint(() => modelList("deepseek-flash"));
  const run = await rig.run(["doctor"], project, {
    env: { ...env, DSH_BASE_URL: server.url, DSH_SANDBOX: "none" },
  });
  expect(run.code).toBe(1);
  expect(line(run.stdout, "api key")).toBe("✗ api key: missing: run dsh login, or set DSH_API_KEY");
  expect(run.stdout).toContain("✗ sandbox: sandboxing is turned off (DSH_SANDBOX=none); fix:");
});

test("a config file that does not parse is reported, exit 1", async () => {
  const project = rig.project("bad-config");
  writeFileSync(join(project.base, "config.toml"), "permission = 'everything'\n");
  const run = await rig.run(["doctor"], project);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain("✗ config:");
  expect(run.stdout).toContain("permission");
});
