import { describe, expect, test } from "bun:test";
import { createAcpValidator } from "../support/acp-schema.ts";

describe("the outgoing-message validator", () => {
  test("accepts a valid update and a valid prompt response", () => {
    const validator = createAcpValidator();
    validator.inbound({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: {} });
    expect(
      validator.outbound({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
        },
      }),
    ).toEqual([]);
    expect(
      validator.outbound({ jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } }),
    ).toEqual([]);
  });

  test("flags what the root schema would let through", () => {
    const validator = createAcpValidator();
    validator.inbound({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: {} });
    const bogusUpdate = validator.outbound({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "bogus" } },
    });
    const bogusStop = validator.outbound({
      jsonrpc: "2.0",
      id: 1,
      result: { stopReason: "bogus" },
    });
    const typo = validator.outbound({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: "s",
        update: { sessionUpdate: "tool_call", toolCallId: "c", title: "t", rawinput: {} },
      },
    });
    const notRpc = validator.outbound({ id: 2, result: {} });
    const unknownId = validator.outbound({ jsonrpc: "2.0", id: 9, result: {} });
    expect(
      [bogusUpdate.length, bogusStop.length, notRpc.length, unknownId.length].every((n) => n > 0),
    ).toBe(true);
    expect(typo).toEqual([`session/update update: unknown key "rawinput" for SessionUpdate`]);
  });

  test("checks usage numbers are integers", () => {
    const validator = createAcpValidator();
    const problems = validator.outbound({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "usage_update", used: 1.5, size: 10 } },
    });
    expect(problems.length).toBeGreaterThan(0);
  });
});
