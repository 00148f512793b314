/**
 * The web tools through the compiled `dsh acp` and a real client: a host no rule allows is
 * asked about on the fetch's card, naming the host; "always" saves a host rule that a new
 * process uses without asking (and `dsh rules` lists); "allow once" covers that one fetch. A
 * cancel ends a fetch at once. The cards are `fetch` and `search` cards titled with the URL and
 * the query; a paid search counts in `usage_update.cost`, again after a reload.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { spawnAcp } from "../support/acp-process.ts";
import { type PermissionAnswer, dshRules, spawnAnswering } from "../support/answering-acp.ts";
import { ensureBinary } from "../support/binary.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { startWebApiServer } from "../support/web-api-server.ts";
import { type Site, hangingRoute, site } from "../support/web-site.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-web-acp-")));
const shared = { state: join(root, "state"), user: join(root, "user") };
mkdirSync(shared.user);
let page: Site;
const hang = hangingRoute();

beforeAll(async () => {
  await ensureBinary();
  page = site("127.0.0.2", {
    "/doc": () =>
      new Response("<title>Doc</title><h1>Hello</h1>", {
        headers: { "content-type": "text/html" },
      }),
    "/hang": hang.route,
  });
});
afterAll(async () => {
  await page[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
});

function project(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
}

/** One `dsh acp` in `cwd` whose model fetches each of `paths` in its own prompt. */
async function fetches(cwd: string, paths: readonly string[], answer: PermissionAnswer) {
  await using server = await startModelServer();
  for (const [i, path] of paths.entries()) {
    server.script(
      toolTurn([{ id: `f${i}`, name: "web_fetch", args: { url: `${page.origin}${path}` } }]),
      textTurn("done"),
    );
  }
  const { dsh, asked } = await spawnAnswering(shared, server.url, answer);
  await using _dsh = dsh;
  const { sessionId } = await dsh.agent.request("session/new", { cwd, mcpServers: [] });
  for (const _ of paths) {
    const reply = await dsh.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    expect(reply).toEqual({ stopReason: "end_turn" });
  }
  expect(dsh.problems).toEqual([]);
  const read = server.requests
    .filter((_, i) => i % 2 === 1)
    .map((request) => {
      const messages = request.body.messages as { role: string; content: string }[];
      return messages.findLast((m) => m.role === "tool")?.content.split("\n")[0];
    });
  return { asked, read, updates: dsh.updates };
}

describe("a host no rule allows", () => {
  test("is asked about on the fetch's card, naming the host and the URL; a reject refuses it unvisited", async () => {
    const dir = project("reject");
    const before = page.log.length;
    const { asked, read } = await fetches(dir, ["/doc"], "reject_once");
    expect(asked).toHaveLength(1);
    const question = asked[0] as acp.RequestPermissionRequest;
    expect(question.toolCall).toMatchObject({
      toolCallId: "f0",
      kind: "fetch",
      title: `${page.origin}/doc`,
    });
    expect(question.toolCall.content?.[0]).toEqual({
      type: "content",
      content: {
        type: "text",
        text:
          `Let web_fetch connect to 127.0.0.2:${page.port} for ${page.origin}/doc: ` +
          "127.0.0.2 is a loopback address (a service on this machine)",
      },
    });
    expect(question.options.map((option) => [option.kind, option.name])).toEqual([
      ["allow_once", "Allow once for this fetch"],
      ["allow_always", `Always allow \`127.0.0.2:${page.port}\` in ${dir}`],
      ["reject_once", "Reject"],
    ]);
    expect(read).toEqual([
      `${page.origin}/doc was refused: 127.0.0.2:${page.port} is not allowed: [network] allow does ` +
        "not list it, and the user did not allow it (or nobody could be asked)",
    ]);
    expect(page.log.length).toBe(before);
  });

  test("allowed once: that fetch goes through, the next one asks again", async () => {
    const { asked, read } = await fetches(project("once"), ["/doc", "/doc"], "allow_once");
    expect(asked.map((question) => question.toolCall.toolCallId)).toEqual(["f0", "f1"]);
    expect(read).toEqual([`URL: ${page.origin}/doc`, `URL: ${page.origin}/doc`]);
  });

  test("always: a host rule for the project, used by a new process without asking and listed by dsh rules", async () => {
    const dir = project("always");
    const first = await fetches(dir, ["/doc"], "allow_always");
    expect(first.asked).toHaveLength(1);
    const again = await fetches(dir, ["/doc"], "reject_once");
    expect(again.asked).toEqual([]);
    expect(again.read).toEqual([`URL: ${page.origin}/doc`]);
    expect(await dshRules(shared)).toEqual({
      code: 0,
      stdout: `  1  ${dir}  let sandboxed commands and web_fetch connect to 127.0.0.2:${page.port}\n`,
    });
  });

  test("the card is a fetch card titled with the URL, ending with the page's title and size", async () => {
    const { updates } = await fetches(project("card"), ["/doc"], "allow_once");
    const card = updates
      .map((n) => n.update)
      .filter((u) => "toolCallId" in u && u.toolCallId === "f0");
    expect(card[0]).toMatchObject({
      sessionUpdate: "tool_call",
      kind: "fetch",
      title: `${page.origin}/doc`,
      status: "pending",
    });
    expect(card.at(-1)).toMatchObject({
      sessionUpdate: "tool_call_update",
      status: "completed",
      kind: "fetch",
      title: `${page.origin}/doc`,
      content: [
        {
          type: "content",
          content: {
            type: "text",
            text: `URL: ${page.origin}/doc\nTitle: Doc\nContent: text/html, 32 B, converted from HTML to Markdown\n\n# Hello`,
          },
        },
      ],
    });
  });
});

test("a cancel ends a fetch at once: the prompt answers cancelled and the server sees the connection go", async () => {
  await using server = await startModelServer();
  server.script(toolTurn([{ id: "h1", name: "web_fetch", args: { url: `${page.origin}/hang` } }]));
  await using dsh = await spawnAcp({
    baseUrl: server.url,
    configToml: `[network]\nallow = ["127.0.0.2:${page.port}"]\n`,
  });
  await dsh.agent.request("initialize", { protocolVersion: 1 });
  const { sessionId } = await dsh.agent.request("session/new", { cwd: dsh.cwd, mcpServers: [] });
  const prompt = dsh.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "read" }],
  });
  await hang.arrived;
  await dsh.agent.notify("session/cancel", { sessionId });
  expect(await prompt).toEqual({ stopReason: "cancelled" });
  await hang.gone;
  expect(dsh.problems).toEqual([]);
});

test("a paid search is a search card and counts in usage_update.cost, again after a reload", async () => {
  await using model = await startModelServer();
  await using api = startWebApiServer(model);
  api.answer("search", {
    json: { results: [{ title: "Bun", url: "https://bun.sh/", snippet: "fast" }] },
  });
  model.script(
    toolTurn([{ id: "s1", name: "web_search", args: { query: "bun runtime" } }]),
    textTurn("found"),
  );
  const home = join(root, "paid-home");
  const cwd = project("paid");
  const configToml =
    'model = "free"\n[[models]]\nid = "free"\nprices = { cache_hit = 0.0, cache_miss = 0.0, output = 0.0 }\n[web]\nsearch = "deepseek"\n';
  const open = () => spawnAcp({ baseUrl: api.url, configToml, env: { DSH_HOME: home } });
  let sessionId: string;
  {
    await using dsh = await open();
    await dsh.agent.request("initialize", { protocolVersion: 1 });
    ({ sessionId } = await dsh.agent.request("session/new", { cwd, mcpServers: [] }));
    await dsh.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "find" }],
    });
    const updates = dsh.updates.map((n) => n.update);
    expect(updates.find((u) => u.sessionUpdate === "tool_call")).toMatchObject({
      kind: "search",
      title: "bun runtime",
    });
    expect(
      updates.findLast((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
    ).toMatchObject({
      content: [{ type: "content", content: { type: "text", text: "1. [Bun](https://bun.sh/)" } }],
    });
    const costs = updates.flatMap((u) =>
      u.sessionUpdate === "usage_update" ? [u.cost?.amount] : [],
    );
    expect(costs).toEqual([0, 0.00075]);
    expect(dsh.problems).toEqual([]);
  }
  await using again = await open();
  await again.agent.request("initialize", { protocolVersion: 1 });
  await again.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
  const replayed = again.updates.flatMap((n) =>
    n.update.sessionUpdate === "usage_update" ? [n.update.cost?.amount] : [],
  );
  expect(replayed).toEqual([0.00075]);
});
