import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import type { UserContent } from "../../src/session/events.ts";
import { promptTitle } from "../../src/session/folds.ts";
import { startAcpFixture } from "../support/acp-fixture.ts";
import { textTurn } from "../support/model-server.ts";

const m = acp.methods.agent.session;
const link = { type: "resource_link", uri: "file:///w/a.ts", name: "a.ts" } as const;

describe("a session's title", () => {
  test.concurrent.each([
    ["a link and text: the text", [link, { type: "text", text: "explain this" }], "explain this"],
    ["a link only: the mention", [link], "@a.ts"],
    [
      "an embedded file only: its name",
      [{ type: "resource", resource: { uri: "file:///w/b%20c.ts", text: "x" } }],
      "@b c.ts",
    ],
  ] satisfies [string, acp.ContentBlock[], string][])(
    "is the same live and in session/list: %s",
    async (_name, prompt, title) => {
      await using f = await startAcpFixture();
      const { sessionId } = await f.newSession();
      f.model.script(textTurn("ok"));
      await f.h.agent.request(m.prompt, { sessionId, prompt });
      const live = f.h.updates(sessionId).find((u) => u.sessionUpdate === "session_info_update");
      const listed = await f.h.agent.request(m.list, {});
      expect({ live, listed: listed.sessions.map((s) => s.title) }).toEqual({
        live: { sessionUpdate: "session_info_update", title },
        listed: [title],
      });
    },
  );

  test("is the first non-blank text line, whitespace collapsed, at most 80 characters", () => {
    const titles = (
      [
        [{ type: "text", text: "\n  fix   the build \nplease" }],
        [{ type: "text", text: "x".repeat(100) }],
        [{ type: "text", text: " " }],
        [{ type: "image", mimeType: "image/png", data: "AA==" }],
        [link, { type: "resource_link", uri: "file:///w/b.ts", name: "b.ts" }],
      ] satisfies UserContent[][]
    ).map(promptTitle);
    expect(titles).toEqual([
      "fix the build",
      `${"x".repeat(79)}…`,
      undefined,
      "[image]",
      "@a.ts @b.ts",
    ]);
  });
});
