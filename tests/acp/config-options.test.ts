/**
 * Session config options over ACP against a real dsh: the full list in every response, the
 * preset ↔ knobs round trip (with `custom` from a config file), invalid changes, and model and
 * effort switches reaching the very next model request.
 */
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { rejection } from "../support/acp-fixture.ts";
import { startAcpHarness, zedInitialize } from "../support/acp-harness.ts";
import { type ScriptedTurn, textTurn, toolTurn } from "../support/model-server.ts";
import { currentValues, offered, startRig } from "../permission/rig.ts";

const m = acp.methods.agent.session;
const PRESETS = ["read-only", "workspace-write", "danger-full-access"];
const MODELS = ["deepseek-flash", "deepseek-v4-pro"];
const EFFORTS = ["off", "low", "high", "max"];

/** The logged knob and model events of a session, in order. */
function settingsEvents(log: readonly Record<string, unknown>[]) {
  return log
    .filter((e) => ["sandbox_mode", "approval_policy", "model", "effort"].includes(String(e.type)))
    .map((e) => [e.type, e.mode ?? e.policy ?? e.model ?? e.effort]);
}

describe("the option list", () => {
  test("session/new, set_config_option, load and resume all answer the full list and no modes", async () => {
    await using rig = await startRig();
    const created = await rig.newSession();
    const full = {
      ids: ["permission", "model", "effort"],
      categories: ["mode", "model", "thought_level"],
      permission: PRESETS,
      model: MODELS,
      effort: EFFORTS,
    };
    const shape = (options: readonly acp.SessionConfigOption[] | null | undefined) => ({
      ids: (options ?? []).map((o) => o.id),
      categories: (options ?? []).map((o) => o.category),
      permission: offered(options, "permission"),
      model: offered(options, "model"),
      effort: offered(options, "effort"),
    });
    expect(shape(created.configOptions)).toEqual(full);
    expect(currentValues(created.configOptions)).toEqual({
      permission: "workspace-write",
      model: "deepseek-flash",
      effort: "high",
    });
    const changed = await rig.setOption(created.sessionId, "permission", "read-only");
    expect(shape(changed.configOptions)).toEqual(full);
    await rig.h.agent.request(m.close, { sessionId: created.sessionId });

    await using other = startAcpHarness({
      service: rig.agent.composition.service,
      models: rig.agent.composition.models,
    });
    await other.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    const loaded = await other.agent.request(m.load, {
      sessionId: created.sessionId,
      cwd: rig.agent.cwd,
      mcpServers: [],
    });
    expect(shape(loaded.configOptions)).toEqual(full);
    const resumed = await other.agent.request(m.resume, {
      sessionId: created.sessionId,
      cwd: rig.agent.cwd,
    });
    expect(shape(resumed.configOptions)).toEqual(full);

    for (const response of [created, changed, loaded, resumed])
      expect(response).not.toHaveProperty("modes");
    expect([...rig.h.problems, ...other.problems]).toEqual([]);
  });
});

describe("permission presets", () => {
  test("each preset sets both knobs; after the first turn records every setting, the log holds one event per knob that changed; reload shows it", async () => {
    await using rig = await startRig();
    const { sessionId } = await rig.newSession();
    const seen: unknown[] = [];
    for (const preset of [
      "read-only",
      "danger-full-access",
      "workspace-write",
      "danger-full-access",
    ]) {
      const { configOptions } = await rig.setOption(sessionId, "permission", preset);
      seen.push(currentValues(configOptions).permission);
      rig.model.script(textTurn("ok"));
      await rig.prompt(sessionId, `now ${preset}`);
    }
    expect(seen).toEqual([
      "read-only",
      "danger-full-access",
      "workspace-write",
      "danger-full-access",
    ]);
    expect(settingsEvents(rig.logLines(sessionId))).toEqual([
      ["model", "deepseek-flash"],
      ["effort", "high"],
      ["sandbox_mode", "read-only"],
      ["approval_policy", "on-request"],
      ["sandbox_mode", "danger-full-access"],
      ["approval_policy", "never"],
      ["sandbox_mode", "workspace-write"],
      ["approval_policy", "on-request"],
      ["sandbox_mode", "danger-full-access"],
      ["approval_policy", "never"],
    ]);
    await rig.h.agent.request(m.close, { sessionId });
    const loaded = await rig.h.agent.request(m.load, {
      sessionId,
      cwd: rig.agent.cwd,
      mcpServers: [],
    });
    expect(currentValues(loaded.configOptions).permission).toBe("danger-full-access");
  });

  test("knobs from the config file that match no preset show as custom, which cannot be chosen", async () => {
    await using rig = await startRig({
      configToml: 'permission = "workspace-write"\napproval_policy = "never"\n',
    });
    const { sessionId, configOptions } = await rig.newSession();
    expect(currentValues(configOptions).permission).toBe("custom");
    expect(offered(configOptions, "permission")).toEqual([...PRESETS, "custom"]);

    const refused = await rejection(rig.setOption(sessionId, "permission", "custom"));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain("custom cannot be chosen");

    const chosen = await rig.setOption(sessionId, "permission", "read-only");
    expect(currentValues(chosen.configOptions).permission).toBe("read-only");
    expect(offered(chosen.configOptions, "permission")).toEqual(PRESETS);
    expect((await rejection(rig.setOption(sessionId, "permission", "custom"))).code).toBe(-32602);
    expect(rig.h.problems).toEqual([]);
  });

  test("a preset named in DSH_PERMISSION wins whole over the file's knobs", async () => {
    await using rig = await startRig({
      configToml: 'approval_policy = "never"\n',
      env: { DSH_PERMISSION: "read-only" },
    });
    const { configOptions } = await rig.newSession();
    expect(currentValues(configOptions).permission).toBe("read-only");
    expect(offered(configOptions, "permission")).toEqual(PRESETS);
  });
});

describe("invalid changes", () => {
  test("unknown ids, values not offered and boolean values are invalid params and change nothing", async () => {
    await using rig = await startRig({
      configToml: '[[models]]\nid = "plain"\nthinking = "none"\n',
    });
    const { sessionId, configOptions } = await rig.newSession();
    const before = currentValues(configOptions);
    const bad: acp.SetSessionConfigOptionRequest[] = [
      { sessionId, configId: "colour", value: "red" },
      { sessionId, configId: "mode", value: "read-only" },
      { sessionId, configId: "permission", value: "yolo" },
      { sessionId, configId: "permission", value: "custom" },
      { sessionId, configId: "permission", value: "" },
      { sessionId, configId: "model", value: "no-such-model" },
      { sessionId, configId: "effort", value: "extreme" },
      { sessionId, configId: "permission", type: "boolean", value: true },
    ];
    const codes = [];
    for (const params of bad)
      codes.push((await rejection(rig.h.agent.request(m.setConfigOption, params))).code);
    expect(codes).toEqual(bad.map(() => -32602));

    // effort is offered only while the model controls reasoning.
    const plain = await rig.setOption(sessionId, "model", "plain");
    expect(plain.configOptions.map((o) => o.id)).toEqual(["permission", "model"]);
    expect((await rejection(rig.setOption(sessionId, "effort", "low"))).code).toBe(-32602);
    const back = await rig.setOption(sessionId, "model", "deepseek-flash");
    expect(currentValues(back.configOptions)).toEqual(before);

    expect(
      (await rejection(rig.setOption("no-such-session", "permission", "read-only"))).code,
    ).toBe(-32002);
    expect(rig.h.problems).toEqual([]);
  });
});

describe("model and effort", () => {
  test("a model switch while idle reaches the very next model request", async () => {
    await using rig = await startRig();
    const { sessionId } = await rig.newSession();
    await rig.setOption(sessionId, "model", "deepseek-v4-pro");
    await rig.setOption(sessionId, "effort", "max");
    rig.model.script(textTurn("ok"));
    await rig.prompt(sessionId, "hi");
    expect(rig.model.requests[0]?.body).toMatchObject({
      model: "deepseek-v4-pro",
      thinking: { type: "enabled" },
      reasoning_effort: "max",
    });
    await rig.setOption(sessionId, "effort", "off");
    rig.model.script(textTurn("ok"));
    await rig.prompt(sessionId, "again");
    expect(rig.model.requests[1]?.body).toMatchObject({
      model: "deepseek-v4-pro",
      thinking: { type: "disabled" },
    });
    expect(rig.model.requests[1]?.body).not.toHaveProperty("reasoning_effort");
  });

  test("a model switch during a turn reaches the turn's next model request", async () => {
    await using rig = await startRig();
    const { sessionId } = await rig.newSession();
    const gate = Promise.withResolvers<void>();
    const step = toolTurn([{ id: "r1", name: "read_file", args: { path: "missing.txt" } }]);
    const held: ScriptedTurn = {
      respond: {
        stream: [{ until: gate.promise }, ...("stream" in step.respond ? step.respond.stream : [])],
      },
    };
    rig.model.script(held, textTurn("done"));
    const prompt = rig.prompt(sessionId, "read");
    await rig.model.received(0);
    const { configOptions } = await rig.setOption(sessionId, "model", "deepseek-v4-pro");
    expect(currentValues(configOptions).model).toBe("deepseek-v4-pro");
    gate.resolve();
    expect(await prompt).toEqual({ stopReason: "end_turn" });
    expect(rig.model.requests.map((r) => r.body.model)).toEqual([
      "deepseek-flash",
      "deepseek-v4-pro",
    ]);
  });

  test("DSH_MODEL outside the catalog is the default, offered in the select and sent as-is", async () => {
    await using rig = await startRig({ env: { DSH_MODEL: "local-llm" } });
    const { sessionId, configOptions } = await rig.newSession();
    expect(currentValues(configOptions)).toEqual({
      permission: "workspace-write",
      model: "local-llm",
    });
    expect(offered(configOptions, "model")).toEqual([...MODELS, "local-llm"]);
    // Choosing the current model again is no change, even though no catalog entry describes it.
    expect(
      currentValues((await rig.setOption(sessionId, "model", "local-llm")).configOptions).model,
    ).toBe("local-llm");
    rig.model.script(textTurn("ok"));
    await rig.prompt(sessionId, "hi");
    expect(rig.model.requests[0]?.body.model).toBe("local-llm");
    expect(rig.model.requests[0]?.body).not.toHaveProperty("thinking");
  });
});
