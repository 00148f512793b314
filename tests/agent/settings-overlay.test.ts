/**
 * The settings overlay over a real session log: changes made while idle are held and shown,
 * and logged when a prompt anchors them (with every setting the log has never recorded); a
 * change during a turn is logged at once; a bad change changes nothing.
 */
import { describe, expect, test } from "bun:test";
import { createSettingsOverlay } from "../../src/agent/settings-overlay.ts";
import { silentLogger } from "../../src/log.ts";
import type { NewSessionEvent } from "../../src/session/events.ts";
import type { SessionSettings } from "../../src/session/settings.ts";
import type { SessionLog } from "../../src/session/types.ts";
import { tempLog } from "../session/helpers.ts";

const DEFAULTS: SessionSettings = {
  model: "deepseek-flash",
  effort: "high",
  knobs: { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
};

function overlayOver(log: SessionLog) {
  return createSettingsOverlay({
    log,
    defaults: DEFAULTS,
    catalog: { models: () => [] },
    logger: silentLogger,
  });
}

/** The settings events of the log, without `seq` and `at`. */
function settingsLogged(log: SessionLog): NewSessionEvent[] {
  return log.events.flatMap(({ seq: _seq, at: _at, ...event }) =>
    event.type === "turn_start" ? [] : [event],
  );
}

describe("the settings overlay", () => {
  test("an idle change is shown at once and logged at the anchor, with every setting not yet recorded", async () => {
    await using temp = await tempLog();
    const { log } = temp;
    const settings = overlayOver(log);
    expect(settings.change({ effort: "low" }, false)).toEqual({ ...DEFAULTS, effort: "low" });
    expect(log.events).toEqual([]);
    settings.anchor();
    expect(settingsLogged(log)).toEqual([
      { type: "model", model: "deepseek-flash" },
      { type: "effort", effort: "low" },
      { type: "sandbox_mode", mode: "workspace-write" },
      { type: "approval_policy", policy: "on-request" },
    ]);
    // Once recorded, an anchor logs only what changed.
    settings.change({ knobs: { sandboxMode: "read-only", approvalPolicy: "on-request" } }, false);
    settings.anchor();
    settings.anchor();
    expect(settingsLogged(log).slice(4)).toEqual([{ type: "sandbox_mode", mode: "read-only" }]);
  });

  test("a change during a turn is logged at once; one that changes nothing logs nothing", async () => {
    await using temp = await tempLog();
    const { log } = temp;
    const settings = overlayOver(log);
    settings.anchor();
    settings.change({ model: "deepseek-v4-pro" }, true);
    settings.change({ effort: "high" }, true);
    expect(settingsLogged(log).slice(4)).toEqual([{ type: "model", model: "deepseek-v4-pro" }]);
    expect(settings.current()).toEqual({ ...DEFAULTS, model: "deepseek-v4-pro" });
  });

  test("a change with a bad value is refused and changes nothing", async () => {
    await using temp = await tempLog();
    const { log } = temp;
    const settings = overlayOver(log);
    expect(() => settings.change({ effort: "low", model: "two words" }, false)).toThrow(
      'malformed model id: "two words"',
    );
    settings.anchor();
    expect(settings.current()).toEqual(DEFAULTS);
  });
});
