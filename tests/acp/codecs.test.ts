import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { createAcpApprovalAnswerer, decisionOf, permissionParams } from "../../src/acp/approval.ts";
import { configChange, configOptions } from "../../src/acp/config-options.ts";
import { toRequestError, turnError } from "../../src/acp/errors.ts";
import { userContentOf } from "../../src/acp/prompt-content.ts";
import { settlementOf } from "../../src/acp/stop-reason.ts";
import { titleOf } from "../../src/acp/title.ts";
import type { SessionSettings } from "../../src/agent/types.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../../src/errors.ts";
import { createAcpValidator } from "../support/acp-schema.ts";

const settings: SessionSettings = {
  model: "deepseek-chat",
  effort: "high",
  knobs: { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
};
const models = [
  { id: "deepseek-chat", name: "DeepSeek Chat", thinking: "none" as const },
  { id: "deepseek-reasoner", name: "DeepSeek Reasoner", thinking: "deepseek" as const },
];

describe("the stop-reason codec", () => {
  test("passes every ACP stop reason through and turns error into an error", () => {
    const reasons = [
      "end_turn",
      "max_tokens",
      "max_turn_requests",
      "refusal",
      "cancelled",
    ] as const;
    expect(reasons.map((reason) => settlementOf({ turnId: "t", reason }))).toEqual(
      reasons.map((stopReason) => ({ type: "stop", stopReason })),
    );
    expect(
      settlementOf({
        turnId: "t",
        reason: "error",
        error: { code: "auth", message: "the API key was rejected" },
      }),
    ).toEqual({
      type: "error",
      error: { code: "auth", message: "the API key was rejected" },
    });
  });

  test("an error turn rejects with its own message and code", () => {
    const error = turnError({
      code: "auth",
      message: "authentication failed: the API key was rejected",
    });
    expect([error.code, error.message, error.data]).toEqual([
      -32603,
      "authentication failed: the API key was rejected",
      { code: "auth", message: "authentication failed: the API key was rejected" },
    ]);
  });
});

describe("error mapping", () => {
  test("typed errors get their JSON-RPC codes", () => {
    const codes = [
      toRequestError(new InvalidInputError("bad cwd")).code,
      toRequestError(new NotFoundError("no session"), { sessionId: "s" }).code,
      toRequestError(new ConflictError("busy")).code,
      toRequestError(new Error("boom")).code,
    ];
    expect(codes).toEqual([-32602, -32002, -32600, -32603]);
    expect(toRequestError(new NotFoundError("no session"), { sessionId: "s" }).data).toMatchObject({
      sessionId: "s",
    });
    expect(toRequestError(new InvalidInputError("bad cwd")).message).toBe(
      "Invalid params: bad cwd",
    );
  });

  test("a RequestError passes through untouched", () => {
    const original = acp.RequestError.authRequired();
    expect(toRequestError(original)).toBe(original);
  });
});

describe("config options", () => {
  test("permission and model selects, plus effort only for a model with reasoning control", () => {
    expect(configOptions(settings, models).map((o) => [o.id, o.category, o.currentValue])).toEqual([
      ["permission", "mode", "workspace-write"],
      ["model", "model", "deepseek-chat"],
    ]);
    const reasoner = configOptions({ ...settings, model: "deepseek-reasoner" }, models);
    expect(reasoner.map((o) => o.id)).toEqual(["permission", "model", "effort"]);
  });

  test("custom shows only while current; an unknown current model is still offered", () => {
    const custom = configOptions(
      {
        ...settings,
        model: "local-llm",
        knobs: { sandboxMode: "read-only", approvalPolicy: "never" },
      },
      models,
    );
    const values = custom.map((o) =>
      o.type === "select" ? o.options.map((c) => ("value" in c ? c.value : c.group)) : [],
    );
    expect(values).toEqual([
      ["read-only", "workspace-write", "danger-full-access", "custom"],
      ["deepseek-chat", "deepseek-reasoner", "local-llm"],
    ]);
    expect(configOptions(settings, models)[0]).toMatchObject({ currentValue: "workspace-write" });
  });

  test("a change is validated against what is offered", () => {
    const req = (configId: string, value: string) => ({ sessionId: "s", configId, value });
    expect(configChange(req("permission", "read-only"), settings, models)).toEqual({
      knobs: { sandboxMode: "read-only", approvalPolicy: "on-request" },
    });
    expect(configChange(req("model", "deepseek-reasoner"), settings, models)).toEqual({
      model: "deepseek-reasoner",
    });
    for (const bad of [
      req("permission", "custom"),
      req("model", "gpt"),
      req("effort", "low"),
      req("colour", "red"),
    ]) {
      expect(() => configChange(bad, settings, models)).toThrow(InvalidInputError);
    }
    expect(() =>
      configChange(
        { sessionId: "s", configId: "model", type: "boolean", value: true },
        settings,
        models,
      ),
    ).toThrow(InvalidInputError);
  });

  test("the option list is a valid session/new response", () => {
    const validator = createAcpValidator();
    validator.inbound({ jsonrpc: "2.0", id: 0, method: "session/new", params: {} });
    const result = {
      sessionId: "s",
      configOptions: configOptions({ ...settings, model: "deepseek-reasoner" }, models),
    };
    expect(validator.outbound({ jsonrpc: "2.0", id: 0, result })).toEqual([]);
  });
});

describe("prompt content", () => {
  test("text and resource links are accepted", () => {
    expect(
      userContentOf([
        { type: "text", text: "see" },
        { type: "resource_link", uri: "file:///a", name: "a", title: "A", mimeType: null },
      ]),
    ).toEqual([
      { type: "text", text: "see" },
      { type: "resource_link", uri: "file:///a", name: "a", title: "A" },
    ]);
  });

  test("empty prompts and unsupported blocks are invalid input", () => {
    const bad: acp.ContentBlock[][] = [
      [],
      [{ type: "text", text: "  \n" }],
      [{ type: "image", data: "AA==", mimeType: "image/png" }],
      [{ type: "audio", data: "AA==", mimeType: "audio/wav" }],
      [
        { type: "text", text: "x" },
        { type: "resource", resource: { uri: "file:///a", text: "a" } },
      ],
    ];
    for (const prompt of bad) expect(() => userContentOf(prompt)).toThrow(InvalidInputError);
  });

  test("the title is the first non-blank line, shortened", () => {
    expect(titleOf([{ type: "text", text: "\n  fix   the build \nplease" }])).toBe("fix the build");
    expect(titleOf([{ type: "text", text: "x".repeat(100) }])).toHaveLength(80);
    expect(titleOf([{ type: "text", text: " " }])).toBeUndefined();
  });
});

describe("permission requests", () => {
  test("keep the call's own title, and show what is asked, the command and the options", () => {
    const params = permissionParams(
      {
        sessionId: "s",
        toolCallId: "c",
        kind: "escalate",
        title: "Run `make install` unsandboxed",
        reason: "needs network",
        intent: {
          type: "terminal",
          title: "make install",
          command: "make install",
          cwd: "/p",
          output: "",
        },
        rawInput: { command: "make install", escalate: true },
      },
      { terminalOutput: false },
    );
    expect(params).toEqual({
      sessionId: "s",
      toolCall: {
        toolCallId: "c",
        title: "make install",
        kind: "execute",
        rawInput: { command: "make install", escalate: true },
        content: [
          {
            type: "content",
            content: { type: "text", text: "Run `make install` unsandboxed: needs network" },
          },
          { type: "content", content: { type: "text", text: "```sh\n$ make install\n```" } },
        ],
      },
      options: [
        { optionId: "allow", name: "Allow once", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    expect(
      createAcpValidator().outbound({
        jsonrpc: "2.0",
        id: 0,
        method: "session/request_permission",
        params,
      }),
    ).toEqual([]);
  });

  test("only the allow option allows", () => {
    expect(decisionOf({ outcome: { outcome: "selected", optionId: "allow" } })).toBe("allow");
    expect(decisionOf({ outcome: { outcome: "selected", optionId: "reject" } })).toBe("deny");
    expect(decisionOf({ outcome: { outcome: "selected", optionId: "other" } })).toBe("deny");
    expect(decisionOf({ outcome: { outcome: "cancelled" } })).toBe("deny");
  });
});

describe("the ACP approval answerer", () => {
  const request = {
    sessionId: "live",
    toolCallId: "c",
    kind: "write" as const,
    title: "Write /x",
    reason: "outside",
    intent: { type: "generic" as const, title: "Write /x", kind: "edit" as const },
  };
  const signal = new AbortController().signal;

  test("passes foreign sessions and requests without a tool call; a failing client is a deny", async () => {
    const answerer = createAcpApprovalAnswerer();
    const seen: string[] = [];
    const unregister = answerer.register("live", {
      requestPermission: async (r) => {
        seen.push(r.toolCallId);
        if (r.title === "boom") throw new Error("client gone");
        return "allow";
      },
    });
    expect(await answerer.answer({ ...request, sessionId: "other" }, signal)).toBe("pass");
    expect(await answerer.answer({ ...request, toolCallId: undefined }, signal)).toBe("pass");
    expect(await answerer.answer(request, signal)).toBe("allow");
    expect(await answerer.answer({ ...request, title: "boom" }, signal)).toBe("deny");
    unregister();
    expect(await answerer.answer(request, signal)).toBe("pass");
    expect(seen).toEqual(["c", "c"]);
  });
});
