/**
 * MCP prompts as slash commands through the compiled `dsh acp`: the test stdio server's prompts
 * are advertised once it is up (after the session's first list), run as `/<server>:<prompt>`
 * with arguments by position and by name, and the list follows `prompts/list_changed`.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { spawnAcp } from "../support/acp-process.ts";
import { advertised, advertises, messageContent, openSession } from "../support/library-files.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { serverLog, stdioServer } from "./rig.ts";

test("a server's prompt runs as /server:prompt with its arguments, and the list follows the server", async () => {
  await using model = await startModelServer();
  await using dsh = await spawnAcp({
    baseUrl: model.url,
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
  });
  const log = join(dsh.cwd, "..", "srv.log");
  const { sessionId, prompt } = await openSession(dsh, [stdioServer("srv", { MCP_TEST_LOG: log })]);

  const listed = await dsh.waitForUpdate(sessionId, advertises("srv:review"));
  expect(advertised(listed, "srv:review")).toEqual({
    name: "srv:review",
    description: "Review code in a language",
    input: { hint: "<language> [focus]" },
  });

  model.script(textTurn("reviewed"));
  expect(await prompt("/srv:review typescript focus=naming")).toEqual({ stopReason: "end_turn" });
  expect(serverLog(log).calls).toEqual([
    { tool: "prompt:review", args: { language: "typescript", focus: "naming" } },
  ]);
  const sent = JSON.stringify(messageContent(model.requests[0], "user"));
  expect(sent).toContain("Review the typescript code, looking at naming.");
  expect(sent).toContain('<resource uri=\\"test://style-guide\\">\\nTabs.\\n</resource>');

  // A required argument missing: refused before the server is asked, and no turn runs.
  const refused = await prompt("/srv:review").catch((error: unknown) => error);
  expect(refused instanceof acp.RequestError ? [refused.code, refused.message] : refused).toEqual([
    -32602,
    "Invalid params: /srv:review needs language (usage: /srv:review <language> [focus])",
  ]);
  expect(serverLog(log).calls).toHaveLength(1);

  // The server adds a prompt (`grow`): it announces the change and the list follows.
  model.script(toolTurn([{ id: "g1", name: "mcp__srv__grow", args: {} }]), textTurn("grown"));
  await prompt("grow the server");
  await dsh.waitForUpdate(sessionId, advertises("srv:late"));
  model.script(textTurn("late"));
  await prompt("/srv:late");
  expect(messageContent(model.requests.at(-1), "user")).toBe("the late prompt");
  expect(dsh.problems).toEqual([]);
});
