/** One tool result cannot flood the context, whatever the tool. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { budgetToolOutput, TOOL_OUTPUT_TOKENS } from "../../src/agent/output-budget.ts";
import { estimateTokens } from "../../src/llm/tokens.ts";
import { createTestAgent } from "../support/agent.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

describe("the tool output budget", () => {
  test("output within the budget is unchanged", () => {
    const result = { isError: false, output: "line\n".repeat(100) };
    expect(budgetToolOutput(result)).toBe(result);
  });

  test("past it, whole lines of the head and the tail stay around a note saying how to get the rest", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}: ${"x".repeat(20)}`);
    const { output, isError } = budgetToolOutput({ isError: true, output: lines.join("\n") });
    expect(isError).toBe(true);
    expect(estimateTokens(output)).toBeLessThanOrEqual(TOOL_OUTPUT_TOKENS + 100);
    expect(output.startsWith("line 1: ")).toBe(true);
    expect(output.endsWith(`line 20000: ${"x".repeat(20)}`)).toBe(true);
    const note = output.match(/\[… ([\d,]+) lines, about ([\d,]+) tokens left out here: .*\]\n/);
    expect(note?.[0]).toContain("read_file with offset and limit");
    const kept = output.replace(note?.[0] ?? "", "").split("\n");
    expect(kept.every((line) => /^line \d+: x{20}$/.test(line))).toBe(true);
    expect(kept.length + Number(note?.[1]?.replace(/,/g, ""))).toBe(20_000);
  });

  test("multibyte text is never cut inside a character", () => {
    const output = "日本語のテキスト🙂".repeat(10_000);
    const budgeted = budgetToolOutput({ isError: false, output }, 1000).output;
    expect(budgeted).not.toContain("\uFFFD");
    expect(Buffer.from(budgeted, "utf8").toString("utf8")).toBe(budgeted);
    expect(budgeted.length).toBeLessThan(output.length);
  });

  test("a huge read reaches the model held to the budget, and the log holds what the model read", async () => {
    await using server = await startModelServer();
    await using agent = createTestAgent({ baseUrl: server.url });
    const big = Array.from({ length: 2000 }, (_, i) => `${i + 1} ${"word ".repeat(30)}`).join("\n");
    writeFileSync(join(agent.cwd, "big.txt"), big);
    server.script(
      toolTurn([{ id: "r1", name: "read_file", args: { path: "big.txt" } }]),
      textTurn("read"),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "read big.txt" }], new AbortController().signal);
    const messages = v.parse(
      v.array(v.looseObject({ role: v.string(), content: v.optional(v.string()) })),
      server.requests[1]?.body.messages,
    );
    const tool = messages.find((m) => m.role === "tool")?.content ?? "";
    expect(estimateTokens(tool)).toBeLessThanOrEqual(TOOL_OUTPUT_TOKENS + 100);
    expect(tool).toContain("left out here");
    const logged = handle.history().find((event) => event.type === "tool_result");
    expect(logged?.type === "tool_result" && logged.output).toBe(tool);
    expect(server.failures).toEqual([]);
  });
});
