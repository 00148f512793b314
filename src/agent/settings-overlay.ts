/**
 * A session's settings: the log's fold over the process's defaults, with the changes made while
 * idle held on top (the overlay) until the next prompt anchors them in the log. A change made
 * while a turn runs is logged, and flushed, at once.
 */
import type { Logger } from "../log.ts";
import type { NewSessionEvent, SessionEvent } from "../session/events.ts";
import { foldSettings, hasLoggedSetting } from "../session/folds.ts";
import {
  SESSION_SETTINGS,
  type SessionSettings,
  type SettingsCatalog,
  checkSettingsChange,
} from "../session/settings.ts";
import type { SessionLog } from "../session/types.ts";

export interface SettingsOverlayDeps {
  readonly log: SessionLog;
  /** The settings of a session whose log has recorded none. */
  readonly defaults: SessionSettings;
  /** What a change is checked against. */
  readonly catalog: SettingsCatalog;
  readonly logger: Logger;
}

export interface SettingsOverlay {
  /** The settings in force: the log's, with the overlay on top. */
  current(): SessionSettings;
  /**
   * Logs the overlay, and every setting the log has never recorded, then drops the overlay:
   * called right after a prompt's anchor, before the turn's first request.
   */
  anchor(): void;
  /**
   * Applies a change: logged at once while `turnOpen`, held in the overlay otherwise.
   * InvalidInputError for a value a setting does not take (nothing changes then).
   * @returns the settings in force after it
   */
  change(change: Partial<SessionSettings>, turnOpen: boolean): SessionSettings;
}

/** Creates the overlay of one session, empty. */
export function createSettingsOverlay(deps: SettingsOverlayDeps): SettingsOverlay {
  const { log } = deps;
  let pending: Partial<SessionSettings> = {};
  const durable = () => foldSettings(log.events, deps.defaults);
  const current = (): SessionSettings => ({ ...durable(), ...pending });

  return {
    current,
    anchor() {
      for (const event of settingsEvents(durable(), pending, unrecordedSettings(log.events)))
        log.append(event);
      pending = {};
    },
    change(change, turnOpen) {
      const valid = checkSettingsChange(change, deps.catalog);
      if (!turnOpen) {
        pending = { ...pending, ...valid };
        return current();
      }
      const events = settingsEvents(current(), valid);
      for (const event of events) log.append(event);
      pending = {};
      // Durable at once: a crash later in the turn keeps the change.
      if (events.length > 0) {
        log.flush().catch((error: unknown) => {
          deps.logger.error("could not flush a settings change", {
            sessionId: log.header.id,
            error,
          });
        });
      }
      return current();
    },
  };
}

/**
 * The settings a log has never recorded, by event type. A session's first turn records them
 * all, so a resumed session keeps its own settings whatever the defaults of the process
 * reopening it.
 */
function unrecordedSettings(events: readonly SessionEvent[]): ReadonlySet<string> {
  const types = SESSION_SETTINGS.map((setting) => setting.type);
  return new Set(types.filter((type) => !hasLoggedSetting(events, type)));
}

/**
 * The log events that move `from` to `from` overlaid with `change`: one per changed setting,
 * and one for each setting whose type is in `record` even when unchanged, in table order.
 */
function settingsEvents(
  from: SessionSettings,
  change: Partial<SessionSettings>,
  record: ReadonlySet<string> = new Set(),
): NewSessionEvent[] {
  const to: SessionSettings = { ...from, ...change };
  return SESSION_SETTINGS.filter(
    (setting) => record.has(setting.type) || setting.differs(from, to),
  ).map((setting) => setting.eventOf(to));
}
