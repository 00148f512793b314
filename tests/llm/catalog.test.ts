import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createModelCatalog, UserModelConfig } from "../../src/llm/catalog.ts";

describe("model catalog", () => {
  test("built-ins: deepseek-flash is the default, all DeepSeek-style, 1M context", () => {
    const catalog = createModelCatalog();
    expect([catalog.default.id, catalog.default.name]).toEqual([
      "deepseek-flash",
      "DeepSeek Flash",
    ]);
    expect(
      catalog
        .models()
        .map((m) => [m.id, m.contextWindow, m.thinking, m.reasoningEcho, m.streamUsage]),
    ).toEqual([
      ["deepseek-flash", 1_048_576, "deepseek", "reasoning_content", true],
      ["deepseek-v4-flash", 1_048_576, "deepseek", "reasoning_content", true],
      ["deepseek-v4-pro", 1_048_576, "deepseek", "reasoning_content", true],
    ]);
    expect(catalog.supportsEffort("deepseek-v4-pro")).toBe(true);
  });

  test("an unknown default id is used as-is with generic settings and listed", () => {
    const catalog = createModelCatalog({ defaultModel: "qwen3-coder:30b" });
    expect(catalog.default).toEqual({
      id: "qwen3-coder:30b",
      name: "qwen3-coder:30b",
      contextWindow: 131_072,
      maxOutputTokens: 16_384,
      thinking: "none",
      reasoningEcho: "reasoning_content",
      streamUsage: true,
    });
    expect(catalog.models().map((m) => m.id)).toEqual([
      "deepseek-flash",
      "deepseek-v4-flash",
      "deepseek-v4-pro",
      "qwen3-coder:30b",
    ]);
    expect(catalog.supportsEffort("qwen3-coder:30b")).toBe(false);
  });

  test("user models from the config: new ones are added, a built-in id is overridden field by field", () => {
    const userModels = v.parse(v.array(UserModelConfig), [
      { id: "deepseek-v4-pro", max_output_tokens: 393_216 },
      {
        id: "local-vllm",
        name: "Local vLLM",
        base_url: "http://127.0.0.1:8000/v1",
        context_window: 32_768,
        max_output_tokens: 4096,
        thinking: "reasoning_effort",
        reasoning_echo: "reasoning",
        stream_usage: false,
      },
    ]);
    const catalog = createModelCatalog({ defaultModel: "local-vllm", userModels });
    expect([
      catalog.get("deepseek-v4-pro").maxOutputTokens,
      catalog.get("deepseek-v4-pro").name,
    ]).toEqual([393_216, "DeepSeek V4 Pro"]);
    expect(catalog.default).toEqual({
      id: "local-vllm",
      name: "Local vLLM",
      baseUrl: "http://127.0.0.1:8000/v1",
      contextWindow: 32_768,
      maxOutputTokens: 4096,
      thinking: "reasoning_effort",
      reasoningEcho: "reasoning",
      streamUsage: false,
    });
    expect(catalog.models().length).toBe(4);
  });

  test("get() of an id nobody configured never throws", () => {
    expect(createModelCatalog().get("gpt-x").thinking).toBe("none");
  });

  test("the config schema rejects unknown keys, bad URLs and bad numbers", () => {
    const bad = [
      { id: "m", contextwindow: 5 },
      { id: "m", base_url: "not a url" },
      { id: "m", max_output_tokens: 0 },
      { id: "" },
      { id: "m", thinking: "yes" },
    ];
    expect(bad.map((entry) => v.safeParse(UserModelConfig, entry).success)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
