/**
 * Folds over a session's events: its turns, its settings and its title. The model's history
 * fold lives in `history.ts`. Nothing here reads a file; the settings a request reads are kept
 * as running state per event array (see `incremental.ts`).
 */
import type { EventOf, LoggedError, SessionEvent, StopReason, UserContent } from "./events.ts";
import { incrementalFold } from "./incremental.ts";
import {
  SESSION_SETTINGS,
  type SessionSettings,
  type SettingEvent,
  type SettingEventType,
  isSettingEvent,
} from "./settings.ts";

export { foldHistory } from "./history.ts";

/** One turn as the log tells it. */
export interface Turn {
  readonly turnId: string;
  /** The content of the turn's first user message ([] when none was logged). */
  readonly content: readonly UserContent[];
  /** The events carrying this turn's id, in log order. */
  readonly events: readonly SessionEvent[];
  /** The logged end reason, or `interrupted` for a turn that started and never ended. */
  readonly reason: StopReason;
  readonly error?: LoggedError;
}

const TITLE_LENGTH = 80;

interface OpenTurn {
  content?: UserContent[];
  readonly events: SessionEvent[];
  end?: EventOf<"turn_end">;
}

/** Groups events into turns by `turnId`, in the order the turns started. */
export function foldTurns(events: readonly SessionEvent[]): Turn[] {
  const turns = new Map<string, OpenTurn>();
  for (const event of events) {
    if (!("turnId" in event)) continue;
    let turn = turns.get(event.turnId);
    if (turn === undefined) {
      turn = { events: [] };
      turns.set(event.turnId, turn);
    }
    turn.events.push(event);
    if (event.type === "user_message") turn.content ??= event.content;
    if (event.type === "turn_end") turn.end ??= event;
  }
  return [...turns].map(([turnId, turn]) => {
    const { end } = turn;
    const base = { turnId, content: turn.content ?? [], events: turn.events };
    if (end === undefined) return { ...base, reason: "interrupted" };
    return end.error === undefined
      ? { ...base, reason: end.reason }
      : { ...base, reason: end.reason, error: end.error };
  });
}

/** The latest event of each setting the log recorded, by type. */
const latestSettings = incrementalFold<Map<SettingEventType, SettingEvent>>(
  () => new Map(),
  (latest, event) => {
    if (isSettingEvent(event)) latest.set(event.type, event);
  },
);

/** The latest logged value of every setting, over `defaults` for those never logged. */
export function foldSettings(
  events: readonly SessionEvent[],
  defaults: SessionSettings,
): SessionSettings {
  const latest = latestSettings(events);
  let settings = defaults;
  for (const setting of SESSION_SETTINGS) {
    const event = latest.get(setting.type);
    if (event !== undefined) settings = setting.adopt(settings, event);
  }
  return settings;
}

/** Whether the log holds at least one event of the setting whose event type is `type`. */
export function hasLoggedSetting(events: readonly SessionEvent[], type: SettingEventType): boolean {
  return latestSettings(events).has(type);
}

const firstSeqs = incrementalFold<Map<string, number>>(
  () => new Map(),
  (first, event) => {
    if ("turnId" in event && !first.has(event.turnId)) first.set(event.turnId, event.seq);
  },
);

/** The seq of the first event carrying `turnId`, if any. */
export function firstSeqOfTurn(
  events: readonly SessionEvent[],
  turnId: string,
): number | undefined {
  return firstSeqs(events).get(turnId);
}

/**
 * A session's one-line title: its first prompt's title (see `promptTitle`), else `(empty)`.
 * The session list and the live `session_info_update` both come from `promptTitle`, so they agree.
 */
export function sessionTitle(events: readonly SessionEvent[]): string {
  const first = events.find((event) => event.type === "user_message");
  if (first?.type !== "user_message") return "(empty)";
  return promptTitle(first.content) ?? "(empty)";
}

/**
 * A prompt's one-line title: the first non-blank line of its text, whitespace collapsed; a
 * prompt without text is named by what it mentions (`@a.ts @b.ts`, `[image]`). At most 80
 * characters; undefined for a prompt with nothing to show.
 */
export function promptTitle(content: readonly UserContent[]): string | undefined {
  const text = content
    .flatMap((block) => (block.type === "text" ? block.text.split("\n") : []))
    .map(oneLine)
    .find((line) => line !== "");
  const title = text ?? content.flatMap(mentionOf).join(" ");
  if (title === "") return undefined;
  return title.length <= TITLE_LENGTH ? title : `${title.slice(0, TITLE_LENGTH - 1).trimEnd()}…`;
}

function mentionOf(block: UserContent): string[] {
  switch (block.type) {
    case "text":
      return [];
    case "resource_link": {
      const name = oneLine(block.name);
      return name === "" ? [] : [`@${name}`];
    }
    case "resource":
      return [`@${uriName(block.uri)}`];
    case "image":
      return ["[image]"];
    default: {
      const exhaustive: never = block;
      return exhaustive;
    }
  }
}

function oneLine(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

/** The last path segment of a uri (`file:///w/a.ts` → `a.ts`), or the uri itself. */
export function uriName(uri: string): string {
  const path = uri.replace(/[?#].*$/, "").replace(/\/+$/, "");
  const name = path.slice(path.lastIndexOf("/") + 1);
  try {
    return oneLine(decodeURIComponent(name)) || uri;
  } catch {
    return oneLine(name) || uri;
  }
}
