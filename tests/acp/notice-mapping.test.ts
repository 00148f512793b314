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

  test("otherwise a notice is a line of the agent's message: at once in a turn, else at the start of the next answer", () => {
    const mapper = createUpdateMapper({ terminalOutput: false });
    const line = {
      sessionUpdate: "agent_message_chunk",
      content: {
        type: "text",
        text: "\n> Rate limited by api.example.com, retrying in 4 s (try 2 of 4): api.example.com is rate limiting requests (HTTP 429)\n\n",
      },
    };
    const inTurn = mapper.map(notice("t"));
    const outside = mapper.map(notice());
    const nextTurn = mapper.map({ type: "turn_start", turnId: "t2", content: [] });
    const later = mapper.map({ type: "turn_start", turnId: "t3", content: [] });
    const seen: Record<string, unknown> = { inTurn, outside, nextTurn, later };
    expect(seen).toEqual({
      inTurn: [line],
      outside: [],
      nextTurn: [line],
      later: [],
    });
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
