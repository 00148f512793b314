/**
 * The settings table against the places that derive from it: every declared value is offered
 * and accepted everywhere the setting is read, and an unknown value is refused with an error
 * that names the values allowed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { type AcpModel, configChange, configOptions } from "../../src/acp/config-options.ts";
import type { SessionSettings } from "../../src/agent/types.ts";
import { HELP } from "../../src/app/args.ts";
import { ConfigError, loadConfig } from "../../src/app/config.ts";
import { createModelCatalog } from "../../src/llm/catalog.ts";
import { PRESETS } from "../../src/permission/knobs.ts";
import { SessionEvent } from "../../src/session/events.ts";
import { checkSettingsChange } from "../../src/session/settings.ts";
import {
  EFFORT,
  REASONING_ECHO,
  SANDBOX,
  THINKING,
  takesEffort,
} from "../../src/settings/table.ts";

const dir = mkdtempSync(join(tmpdir(), "dsh-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** Loads the config from a file holding `toml` (and `env` on top). */
function load(toml: string, env: Record<string, string> = {}) {
  const DSH_CONFIG = join(dir, `config-${files++}.toml`);
  writeFileSync(DSH_CONFIG, toml);
  return loadConfig({ HOME: dir, DSH_CONFIG, ...env });
}

/** The message `load` throws, which must be a ConfigError. */
function loadError(toml: string, env: Record<string, string> = {}): string {
  try {
    load(toml, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("the config loaded");
}

const settings: SessionSettings = {
  model: "thinker",
  effort: "high",
  knobs: PRESETS["workspace-write"],
};
const thinker: AcpModel = { id: "thinker", name: "Thinker", thinking: "deepseek" };

describe("effort", () => {
  test("the levels are the public ones, high by default", () => {
    expect([EFFORT.values, EFFORT.default]).toEqual([["off", "low", "high", "max"], "high"]);
    expect(load("").effort).toBe("high");
  });

  test("the effort select offers every level, with its name, and accepts each", () => {
    const select = configOptions(settings, [thinker]).find((option) => option.id === "effort");
    expect(select).toMatchObject({
      type: "select",
      category: "thought_level",
      options: [
        { value: "off", name: "Off" },
        { value: "low", name: "Low" },
        { value: "high", name: "High" },
        { value: "max", name: "Max" },
      ],
    });
    const request = (value: string) => ({ sessionId: "s", configId: "effort", value });
    expect(EFFORT.values.map((value) => configChange(request(value), settings, [thinker]))).toEqual(
      EFFORT.values.map((effort) => ({ effort })),
    );
  });

  test("every level is accepted from the config file, by a settings change and in the log", () => {
    expect(EFFORT.values.map((effort) => load(`effort = "${effort}"\n`).effort)).toEqual([
      ...EFFORT.values,
    ]);
    for (const effort of EFFORT.values) {
      expect(checkSettingsChange({ effort }, { models: () => [] })).toEqual({ effort });
      const event = { type: "effort", seq: 1, at: "2026-01-01T00:00:00.000Z", effort };
      expect(v.is(SessionEvent, event)).toBe(true);
    }
  });

  test("an unknown level is refused everywhere with the levels named", () => {
    const named = "(off, low, high, max)";
    expect(loadError('effort = "extreme"\n')).toEndWith(
      `.toml:1: effort: unknown effort "extreme" ${named}`,
    );
    const change = () =>
      configChange({ sessionId: "s", configId: "effort", value: "extreme" }, settings, [thinker]);
    expect(change).toThrow(`unknown effort extreme ${named}`);
    // A settings change that did not come through a select (a bug, or a hand-edited caller).
    const raw = { effort: "extreme" } as unknown as Partial<SessionSettings>;
    expect(() => checkSettingsChange(raw, { models: () => [] })).toThrow(
      `unknown effort extreme ${named}`,
    );
    const event = { type: "effort", seq: 1, at: "2026-01-01T00:00:00.000Z", effort: "extreme" };
    expect(v.safeParse(SessionEvent, event).issues?.[0]?.message).toBe(
      `unknown effort "extreme" ${named}`,
    );
  });
});

describe("thinking", () => {
  test("a model takes an effort setting exactly when its reasoning has a switch", () => {
    expect(THINKING.values.map((thinking) => [thinking, takesEffort(thinking)])).toEqual([
      ["deepseek", true],
      ["reasoning_effort", true],
      ["none", false],
    ]);
    expect(takesEffort(undefined)).toBe(false);
  });

  test("the effort select is offered for exactly the models that take an effort", () => {
    const ids = (thinking: AcpModel["thinking"]) =>
      configOptions(settings, [{ ...thinker, thinking }]).map((option) => option.id);
    expect([...THINKING.values, undefined].map(ids)).toEqual([
      ["permission", "model", "effort"],
      ["permission", "model", "effort"],
      ["permission", "model"],
      ["permission", "model"],
    ]);
  });

  test("every thinking and reasoning echo value in [[models]] reaches the catalog", () => {
    const entries = THINKING.values.flatMap((thinking) =>
      REASONING_ECHO.values.map((echo) => ({ thinking, echo })),
    );
    const toml = entries
      .map(
        ({ thinking, echo }, i) =>
          `[[models]]\nid = "m${i}"\nthinking = "${thinking}"\nreasoning_echo = "${echo}"\n`,
      )
      .join("\n");
    const config = load(toml);
    const catalog = createModelCatalog({ userModels: config.models });
    expect(entries.map((_, i) => catalog.get(`m${i}`))).toMatchObject(
      entries.map(({ thinking, echo }) => ({ thinking, reasoningEcho: echo })),
    );
  });

  test("a model nobody described gets the table's defaults: no switch, DeepSeek's echo", () => {
    expect(createModelCatalog().get("unheard-of")).toMatchObject({
      thinking: "none",
      reasoningEcho: "reasoning_content",
    });
    expect([THINKING.default, REASONING_ECHO.default]).toEqual(["none", "reasoning_content"]);
  });

  test("an unknown thinking or reasoning echo value names the values allowed", () => {
    expect(loadError('[[models]]\nid = "m"\nthinking = "yes"\n')).toEndWith(
      'models.0.thinking: unknown thinking "yes" (deepseek, reasoning_effort, none)',
    );
    expect(loadError('[[models]]\nid = "m"\nreasoning_echo = "think"\n')).toEndWith(
      'models.0.reasoning_echo: unknown reasoning_echo "think" (reasoning_content, reasoning, none)',
    );
  });
});

describe("sandbox", () => {
  test("every backend, and auto, is accepted from DSH_SANDBOX and from the file; auto by default", () => {
    expect(SANDBOX.values).toEqual(["auto", "bwrap", "seatbelt", "none"]);
    expect(load("").sandbox).toBe("auto");
    const fromEnv = SANDBOX.values.map((sandbox) => load("", { DSH_SANDBOX: sandbox }).sandbox);
    const fromFile = SANDBOX.values.map((sandbox) => load(`sandbox = "${sandbox}"\n`).sandbox);
    expect([fromEnv, fromFile]).toEqual([[...SANDBOX.values], [...SANDBOX.values]]);
    // The environment wins over the file.
    expect(load('sandbox = "bwrap"\n', { DSH_SANDBOX: "none" }).sandbox).toBe("none");
  });

  test("an unknown backend names every value allowed, from the environment or the file", () => {
    const named = "(auto, bwrap, seatbelt, none)";
    expect(loadError("", { DSH_SANDBOX: "docker" })).toBe(`unknown DSH_SANDBOX "docker" ${named}`);
    expect(loadError('sandbox = "docker"\n')).toEndWith(
      `sandbox: unknown sandbox "docker" ${named}`,
    );
  });

  test("--help lists every value of DSH_SANDBOX and its default", () => {
    expect(HELP).toContain("DSH_SANDBOX           auto | bwrap | seatbelt | none (default auto)");
  });
});
