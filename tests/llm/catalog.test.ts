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
        .map((m) => [m.id, m.contextWindow, m.thinking, m.reasoningEcho, m.streamUsage, m.vision]),
    ).toEqual([
      ["deepseek-flash", 1_048_576, "deepseek", "reasoning_content", true, true],
      ["deepseek-v4-pro", 1_048_576, "deepseek", "reasoning_content", true, false],
    ]);
    expect(catalog.get("deepseek-v4-pro").thinking).toBe("deepseek");
  });

  test("DeepSeek prices: Flash and Pro, off-peak and peak, per 1M tokens", () => {
    const catalog = createModelCatalog();
    expect(catalog.get("deepseek-flash").prices).toEqual({
      standard: { cacheHit: 0.003, cacheMiss: 0.15, output: 0.6 },
      peak: {
        prices: { cacheHit: 0.006, cacheMiss: 0.3, output: 1.2 },
        windows: [
          { days: [1, 2, 3, 4, 5], fromHour: 1, toHour: 4 },
          { days: [1, 2, 3, 4, 5], fromHour: 6, toHour: 10 },
        ],
      },
    });
    expect(catalog.get("deepseek-v4-pro").prices).toMatchObject({
      standard: { cacheHit: 0.022, cacheMiss: 0.66, output: 1.98 },
      peak: { prices: { cacheHit: 0.044, cacheMiss: 1.32, output: 3.96 } },
    });
  });

  test("the retired deepseek-v4-flash is not offered, but works as Flash when chosen", () => {
    const plain = createModelCatalog();
    expect(plain.models().map((m) => m.id)).not.toContain("deepseek-v4-flash");
    const flash = plain.get("deepseek-flash");
    expect(plain.get("deepseek-v4-flash")).toEqual({
      ...flash,
      id: "deepseek-v4-flash",
      name: "DeepSeek V4 Flash (retired)",
    });
    const configured = createModelCatalog({ defaultModel: "deepseek-v4-flash" });
    expect(configured.models().map((m) => m.id)).toEqual([
      "deepseek-flash",
      "deepseek-v4-pro",
      "deepseek-v4-flash",
    ]);
    expect(configured.default.prices).toEqual(flash.prices);
    expect(configured.get("deepseek-v4-flash").thinking).toBe("deepseek");
  });

  test("[[models]] may set prices (one table at all hours), vision and the window", () => {
    const userModels = v.parse(v.array(UserModelConfig), [
      {
        id: "qwen3-coder",
        context_window: 131_072,
        vision: true,
        prices: { cache_hit: 0.1, cache_miss: 1, output: 2 },
      },
      { id: "deepseek-flash", prices: { cache_hit: 0, cache_miss: 0, output: 0 } },
    ]);
    const catalog = createModelCatalog({ userModels });
    expect(catalog.get("qwen3-coder")).toMatchObject({
      contextWindow: 131_072,
      vision: true,
      prices: { standard: { cacheHit: 0.1, cacheMiss: 1, output: 2 } },
    });
    expect(catalog.get("deepseek-flash").prices).toEqual({
      standard: { cacheHit: 0, cacheMiss: 0, output: 0 },
    });
    expect(catalog.get("deepseek-flash").vision).toBe(true);
    expect(
      v.safeParse(UserModelConfig, { id: "m", prices: { cache_hit: -1, cache_miss: 0, output: 0 } })
        .success,
    ).toBe(false);
    expect(v.safeParse(UserModelConfig, { id: "m", prices: { cache_hit: 1 } }).success).toBe(false);
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
      vision: false,
    });
    expect(catalog.models().map((m) => m.id)).toEqual([
      "deepseek-flash",
      "deepseek-v4-pro",
      "qwen3-coder:30b",
    ]);
    expect(catalog.get("qwen3-coder:30b").thinking).toBe("none");
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
      vision: false,
    });
    expect(catalog.models().length).toBe(3);
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
