import { describe, expect, test } from "bun:test";
import { clientOptionsOf } from "../../src/acp/capabilities.ts";
import { createUpdateMapper } from "../../src/acp/update-mapper.ts";
import type { LiveEvent } from "../../src/agent/types.ts";
import { updateProblems } from "../support/acp-schema.ts";

const notice = (turnId?: string): LiveEvent => ({
  type: "notice",
  ...(turnId === undefined ? {} : { turnId }),
  severity: "warning",
  title: "Rate limited by api.example.com, retrying in 4 s (try 2 of 4)",
  description: "api.example.com is rate limiting requests (HTTP 429)",
});

describe("notices on ACP", () => {
  test("a client that advertises session.notices gets notice updates, in a turn or not", () => {
    const mapper = createUpdateMapper({ terminalOutput: false, notices: true });
    const updates = [...mapper.map(notice("t")), ...mapper.map(notice())];
    expect(updates).toEqual(
      [1, 2].map(() => ({
        sessionUpdate: "notice",
        severity: "warning",
        title: "Rate limited by api.example.com, retrying in 4 s (try 2 of 4)",
        description: "api.example.com is rate limiting requests (HTTP 429)",
      })),
    );
    expect(updateProblems(updates)).toEqual([]);
  });

  test("otherwise a notice during a turn is a line of the agent's message, and none outside one", () => {
    const mapper = createUpdateMapper({ terminalOutput: false });
    expect([...mapper.map(notice("t")), ...mapper.map(notice())]).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "text",
          text: "\n\n> Rate limited by api.example.com, retrying in 4 s (try 2 of 4) api.example.com is rate limiting requests (HTTP 429)\n\n",
        },
      },
    ]);
  });

  test("session.notices is read from the client's capabilities; null or absent means none", () => {
    expect(
      [
        { session: { notices: {} } },
        { session: { notices: null } },
        { session: {} },
        undefined,
      ].map((capabilities) => clientOptionsOf(capabilities).notices),
    ).toEqual([true, false, false, false]);
  });
});
