/**
 * A session's directory is one rule, live or reopened: the real paths are compared, so a
 * session made through a symlinked directory loads through its target and back, and another
 * directory is still refused in both cases.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { rejection, startAcpFixture } from "../support/acp-fixture.ts";

const m = acp.methods.agent.session;

describe("the working-directory check of session/load", () => {
  test("a session made through a symlink loads through its real path, live and after a close", async () => {
    await using f = await startAcpFixture();
    const link = join(f.agent.cwd, "..", "link");
    symlinkSync(f.agent.cwd, link);
    const other = join(f.agent.cwd, "..", "other");
    mkdirSync(other);
    const { sessionId } = await f.h.agent.request(m.new, { cwd: link, mcpServers: [] });
    const load = (cwd: string) => f.h.agent.request(m.load, { sessionId, cwd, mcpServers: [] });

    // Live: the session is still open on this connection.
    await load(f.agent.cwd);
    await load(link);
    const liveOther = await rejection(load(other));
    // Reopened: closed first, so the service reads the logged directory back.
    await f.h.agent.request(m.close, { sessionId });
    await load(f.agent.cwd);
    await f.h.agent.request(m.close, { sessionId });
    await load(link);
    await f.h.agent.request(m.close, { sessionId });
    const reopenedOther = await rejection(load(other));

    expect([liveOther.code, reopenedOther.code]).toEqual([-32602, -32602]);
    expect(
      [liveOther.message, reopenedOther.message].map((text) => text.includes(`belongs to ${link}`)),
    ).toEqual([true, true]);
    expect(f.h.problems).toEqual([]);
  });
});
