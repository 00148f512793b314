/**
 * The session settings table against every place that iterates it: each row's event is a line
 * of the log, the settings fold reads it back, and the folds that follow the conversation (the
 * model's history, the replayed transcript) skip it.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { replayUpdates } from "../../src/acp/replay.ts";
import { SessionEvent } from "../../src/session/events.ts";
import { foldSettings, hasLoggedSetting } from "../../src/session/folds.ts";
import { foldHistory } from "../../src/session/history.ts";
import {
  SESSION_SETTINGS,
  type SessionSettings,
  checkSettingsChange,
  isSettingEvent,
} from "../../src/session/settings.ts";

const DEFAULTS: SessionSettings = {
  model: "deepseek-flash",
  effort: "high",
  knobs: { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
};
/** Different from `DEFAULTS` in every setting. */
const OTHER: SessionSettings = {
  model: "deepseek-v4-pro",
  effort: "low",
  knobs: { sandboxMode: "read-only", approvalPolicy: "never" },
};
const at = "2026-01-01T00:00:00.000Z";

/** Each setting's event for `OTHER`'s value, as the log holds it. */
const logged = SESSION_SETTINGS.map((setting, i) =>
  v.parse(SessionEvent, { ...setting.eventOf(OTHER), seq: i + 1, at }),
);

describe("the session settings table", () => {
  test("lists the model, the effort and the two knobs, in the order a turn logs them", () => {
    expect(SESSION_SETTINGS.map((setting) => setting.type)).toEqual([
      "model",
      "effort",
      "sandbox_mode",
      "approval_policy",
    ]);
  });

  test("each setting's event is a log line the settings fold reads back, changing only it", () => {
    for (const [i, setting] of SESSION_SETTINGS.entries()) {
      const event = logged[i] as SessionEvent;
      const folded = foldSettings([event], DEFAULTS);
      expect({
        own: setting.differs(folded, DEFAULTS),
        others: SESSION_SETTINGS.filter((s) => s.differs(folded, DEFAULTS)).map((s) => s.type),
        recorded: hasLoggedSetting([event], setting.type),
      }).toEqual({ own: true, others: [setting.type], recorded: true });
    }
    expect(foldSettings(logged, DEFAULTS)).toEqual(OTHER);
    expect(foldSettings([], DEFAULTS)).toEqual(DEFAULTS);
  });

  test("settings events are no part of the conversation or of the transcript", () => {
    expect(logged.every((event) => isSettingEvent(event))).toBe(true);
    expect(foldHistory(logged)).toEqual([]);
    expect(replayUpdates(logged, { terminalOutput: false })).toEqual([]);
  });

  test("a change is checked setting by setting, and refused with the first bad one named", () => {
    const catalog = { models: () => [] };
    expect(checkSettingsChange(OTHER, catalog)).toEqual(OTHER);
    const bad = (change: Record<string, unknown>) => () =>
      checkSettingsChange(v.parse(v.record(v.string(), v.any()), change), catalog);
    expect(bad({ model: "two words" })).toThrow('malformed model id: "two words"');
    expect(bad({ effort: "extreme", model: "two words" })).toThrow("malformed model id");
    expect(bad({ effort: "extreme" })).toThrow("unknown effort extreme (off, low, high, max)");
    expect(bad({ knobs: { sandboxMode: "open", approvalPolicy: "never" } })).toThrow(
      "unknown sandbox mode: open",
    );
    expect(bad({ knobs: { sandboxMode: "read-only", approvalPolicy: "always" } })).toThrow(
      "unknown approval policy: always",
    );
  });
});
