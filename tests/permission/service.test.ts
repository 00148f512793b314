import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/app/config.ts";
import { InvalidInputError } from "../../src/errors.ts";
import {
  ApprovalPolicy,
  type Knobs,
  PRESETS,
  PresetId,
  SandboxMode,
  presetOf,
} from "../../src/permission/knobs.ts";
import {
  type PresetChoice,
  createPermissionService,
  parsePreset,
  presetChoices,
} from "../../src/permission/service.ts";
import { createTestAgent } from "../support/agent.ts";

const ALL_KNOBS: Knobs[] = SandboxMode.options.flatMap((sandboxMode) =>
  ApprovalPolicy.options.map((approvalPolicy) => ({ sandboxMode, approvalPolicy })),
);

describe("presets and knobs", () => {
  test("every preset maps to its knobs and back; the other combinations are custom", () => {
    expect(PresetId.options.map((id) => presetOf(PRESETS[id]))).toEqual([...PresetId.options]);
    expect(
      ALL_KNOBS.map((knobs) => [knobs.sandboxMode, knobs.approvalPolicy, presetOf(knobs)]),
    ).toEqual([
      ["read-only", "on-request", "read-only"],
      ["read-only", "never", "custom"],
      ["workspace-write", "on-request", "workspace-write"],
      ["workspace-write", "never", "custom"],
      ["danger-full-access", "on-request", "custom"],
      ["danger-full-access", "never", "danger-full-access"],
    ]);
  });

  test("the choices list custom only while the knobs match no preset", () => {
    const presets: PresetChoice[] = ["read-only", "workspace-write", "danger-full-access"];
    expect(ALL_KNOBS.map(presetChoices)).toEqual([
      presets,
      [...presets, "custom"],
      presets,
      [...presets, "custom"],
      [...presets, "custom"],
      presets,
    ]);
  });

  test("custom and unknown ids cannot be chosen", () => {
    expect(parsePreset("read-only")).toBe("read-only");
    for (const bad of ["custom", "yolo", "", "Read-Only", " read-only"]) {
      expect(() => parsePreset(bad)).toThrow(InvalidInputError);
    }
    expect(() => parsePreset("custom")).toThrow("custom cannot be chosen");
    expect(() => parsePreset("yolo")).toThrow("read-only, workspace-write, danger-full-access");
  });
});

describe("the permission service over a live session", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function session(configToml = "") {
    const agent = createTestAgent({ baseUrl: "http://127.0.0.1:9", configToml });
    const handle = await agent.composition.service.create({ cwd: agent.cwd });
    cleanup = async () => {
      await handle[Symbol.asyncDispose]();
      await agent[Symbol.asyncDispose]();
    };
    return handle;
  }

  test("set switches both knobs and reports the preset in force", async () => {
    const handle = await session();
    const service = createPermissionService(handle);
    expect(service.current()).toBe("workspace-write");
    for (const preset of ["danger-full-access", "read-only", "workspace-write"] as const) {
      expect(service.set(preset)).toBe(preset);
      expect(handle.settings().knobs).toEqual(PRESETS[preset]);
      expect(service.current()).toBe(preset);
    }
  });

  test("custom from the config file is current until a preset is chosen; choosing custom changes nothing", async () => {
    const handle = await session('sandbox_mode = "read-only"\napproval_policy = "never"\n');
    const service = createPermissionService(handle);
    expect([service.current(), service.choices().at(-1)]).toEqual(["custom", "custom"]);
    expect(() => service.set("custom")).toThrow(InvalidInputError);
    expect(handle.settings().knobs).toEqual({ sandboxMode: "read-only", approvalPolicy: "never" });
    service.set("workspace-write");
    expect([service.current(), service.choices()]).toEqual([
      "workspace-write",
      ["read-only", "workspace-write", "danger-full-access"],
    ]);
  });
});

describe("knobs in the config file", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function load(toml: string, env: Record<string, string> = {}, flags = {}) {
    dir = mkdtempSync(join(tmpdir(), "dsh-knobs-"));
    const DSH_CONFIG = join(dir, "config.toml");
    writeFileSync(DSH_CONFIG, toml);
    return loadConfig({ HOME: dir, DSH_CONFIG, ...env }, flags);
  }

  test("refine the file's preset, and give way whole to a preset from the environment or a flag", () => {
    expect(load("").knobs).toEqual(PRESETS["workspace-write"]);
    expect(load('permission = "read-only"\n').knobs).toEqual(PRESETS["read-only"]);
    expect(
      load('permission = "danger-full-access"\napproval_policy = "on-request"\n').knobs,
    ).toEqual({
      sandboxMode: "danger-full-access",
      approvalPolicy: "on-request",
    });
    expect(load('sandbox_mode = "read-only"\n').knobs).toEqual(PRESETS["read-only"]);
    const custom = 'sandbox_mode = "workspace-write"\napproval_policy = "never"\n';
    expect(presetOf(load(custom).knobs)).toBe("custom");
    expect(load(custom, { DSH_PERMISSION: "read-only" }).knobs).toEqual(PRESETS["read-only"]);
    expect(load(custom, {}, { permission: "danger-full-access" }).knobs).toEqual(
      PRESETS["danger-full-access"],
    );
  });

  test("unknown knob values are config errors naming the key", () => {
    expect(() => load('sandbox_mode = "none"\n')).toThrow(ConfigError);
    expect(() => load('sandbox_mode = "none"\n')).toThrow("sandbox_mode");
    expect(() => load('approval_policy = "always"\n')).toThrow("approval_policy");
  });
});
