import { describe, expect, test } from "bun:test";
import { mcpToolName } from "../../src/mcp/names.ts";
import { sanitizeInputSchema } from "../../src/mcp/schema.ts";

describe("MCP tool names", () => {
  test("are mcp__<server>__<tool> when that reads back to exactly that server and tool", () => {
    expect([
      mcpToolName("github", "create_issue"),
      mcpToolName("my-server_2", "files-read"),
      mcpToolName("a", "b__c"),
      mcpToolName("a", "_b"),
    ]).toEqual([
      "mcp__github__create_issue",
      "mcp__my-server_2__files-read",
      "mcp__a__b__c",
      "mcp__a___b",
    ]);
  });

  test("that could be another's get characters outside [A-Za-z0-9_-] replaced and a digest", () => {
    expect([
      mcpToolName("my server", "files.read/all"),
      mcpToolName("ünï", "tool-1"),
      mcpToolName("a__b", "c"),
      mcpToolName("a_", "_b"),
    ]).toEqual([
      "mcp__my_server__files_read_all_be9f42cc",
      "mcp___n___tool-1_967da830",
      "mcp__a__b__c_a92700ce",
      "mcp__a____b_0a2588ef",
    ]);
  });

  test("of tools whose flat forms meet differ, and depend on nothing else", () => {
    const pairs: [string, string][] = [
      ["a", "b__c"],
      ["a__b", "c"],
      ["a_", "b"],
      ["a", "_b"],
      ["my server", "x"],
      ["my_server", "x"],
      ["my.server", "x"],
    ];
    const names = pairs.map(([server, tool]) => mcpToolName(server, tool));
    expect(new Set(names).size).toBe(pairs.length);
    expect(pairs.map(([server, tool]) => mcpToolName(server, tool))).toEqual(names);
  });

  test("are cut to 64 characters, the digest kept", () => {
    const long = mcpToolName("server", "x".repeat(100));
    const longer = mcpToolName("server", `${"x".repeat(100)}y`);
    expect([long.length, long.startsWith("mcp__server__xxx"), long === longer]).toEqual([
      64,
      true,
      false,
    ]);
  });
});

describe("MCP input schemas", () => {
  test("drop $schema and keywords the model APIs reject, keeping the object's shape", () => {
    expect(
      sanitizeInputSchema({
        $schema: "http://json-schema.org/draft-07/schema#",
        $id: "urn:x",
        type: "object",
        properties: {
          url: { type: "string", format: "uri", examples: ["https://x"], description: "where" },
          count: { type: "integer", minimum: 1, "x-extension": true },
        },
        required: ["url", "ghost"],
        additionalProperties: false,
      }),
    ).toEqual({
      type: "object",
      properties: {
        url: { type: "string", description: "where" },
        count: { type: "integer", minimum: 1 },
      },
      required: ["url"],
      additionalProperties: false,
    });
  });

  test("an object at the root whatever the server sent", () => {
    expect([
      sanitizeInputSchema(undefined),
      sanitizeInputSchema("not a schema"),
      sanitizeInputSchema({}),
      sanitizeInputSchema({ type: "string", anyOf: [{ type: "string" }] }),
      sanitizeInputSchema({ type: "object", properties: [] }),
    ]).toEqual([
      { type: "object", properties: {} },
      { type: "object", properties: {} },
      { type: "object", properties: {} },
      { type: "object", properties: {} },
      { type: "object", properties: {} },
    ]);
  });

  test("local $refs are inlined and a cycle becomes an open schema", () => {
    expect(
      sanitizeInputSchema({
        type: "object",
        properties: {
          point: { $ref: "#/$defs/Point", description: "a point" },
          tree: { $ref: "#/definitions/Node" },
          remote: { $ref: "https://example.com/schema.json" },
        },
        $defs: { Point: { type: "object", properties: { x: { type: "number" } } } },
        definitions: {
          Node: { type: "object", properties: { child: { $ref: "#/definitions/Node" } } },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        point: { type: "object", properties: { x: { type: "number" } }, description: "a point" },
        tree: { type: "object", properties: { child: {} } },
        remote: {},
      },
    });
  });

  test("nesting deeper than the bound is cut, not followed", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { next: deep } };
    const out = JSON.stringify(sanitizeInputSchema(deep));
    expect([out.length < 2000, out.includes('"string"')]).toEqual([true, false]);
  });
});
