/**
 * The session settings table: every setting a session's log records (its model, its effort, its
 * two permission knobs), one row each. A row is the setting's log event and that event's schema,
 * how the setting is read from and written to a session's settings, and which values a change
 * may give it. The log's schema, the settings fold, the events that anchor the idle overlay, the
 * check of a change and the folds that skip settings events all iterate this table, so a new
 * setting is one row here plus the code that acts on it (its default, its config option, its
 * slash command). Event types and field names are the log format: they never change.
 */
import * as v from "valibot";
import { InvalidInputError, quoted } from "../errors.ts";
import type { ModelInfo } from "../llm/types.ts";
import { ApprovalPolicy, type Knobs, SandboxMode } from "../permission/knobs.ts";
import { choiceSchema } from "../settings/schema.ts";
import { EFFORT, type Effort } from "../settings/table.ts";
import { EVENT_FIELDS } from "./event-fields.ts";

/** A session's settings: what its log records, over the defaults of the process running it. */
export interface SessionSettings {
  readonly model: string;
  readonly effort: Effort;
  readonly knobs: Knobs;
}

/** What a change is checked against: the models this process knows. */
export interface SettingsCatalog {
  models(): readonly ModelInfo[];
}

/** A settings event's schema: an object whose `type` is a literal. */
type SettingSchema = v.ObjectSchema<
  { readonly type: v.LiteralSchema<string, undefined> } & v.ObjectEntries,
  undefined
>;

/** A settings event as logged, without the `seq` and `at` the log assigns. */
type NewEventOf<S extends SettingSchema> = Omit<v.InferOutput<S>, "seq" | "at">;

/** How one setting is logged and kept, with its types spelled out. */
interface SettingSpec<S extends SettingSchema, V> {
  /** The value an event of this setting records. */
  readonly logged: (event: v.InferOutput<S>) => V;
  /** The event recording `value`. */
  readonly event: (value: V) => NewEventOf<S>;
  readonly read: (settings: SessionSettings) => V;
  readonly write: (settings: SessionSettings, value: V) => SessionSettings;
  /** Throws InvalidInputError when `change` gives the setting a value it does not take. */
  readonly check: (change: Partial<SessionSettings>, catalog: SettingsCatalog) => void;
}

/** One row of the table, as the code iterating it sees it. */
export interface SessionSetting<S extends SettingSchema = SettingSchema> {
  /** Its log event's type. */
  readonly type: v.InferOutput<S>["type"];
  /** Its log event's schema. */
  readonly schema: S;
  /** `settings` with the value `event` records when it is this setting's event, else `settings`. */
  adopt(settings: SessionSettings, event: { readonly type: string }): SessionSettings;
  /** The event recording this setting's value in `settings`. */
  eventOf(settings: SessionSettings): NewEventOf<S>;
  /** Whether `a` and `b` hold different values of this setting. */
  differs(a: SessionSettings, b: SessionSettings): boolean;
  /** Throws InvalidInputError when `change` gives this setting a value it does not take. */
  check(change: Partial<SessionSettings>, catalog: SettingsCatalog): void;
}

/**
 * Declares a setting whose log event has the schema `schema`; the second call says how the
 * setting is logged and kept (its types follow from the schema).
 */
function defineSetting<S extends SettingSchema>(schema: S) {
  return <V>(spec: SettingSpec<S, V>): SessionSetting<S> => settingOf(schema, spec);
}

function settingOf<S extends SettingSchema, V>(
  schema: S,
  spec: SettingSpec<S, V>,
): SessionSetting<S> {
  const type: v.InferOutput<S>["type"] = schema.entries.type.literal;
  // The log's schema is a variant on `type`: an event of this type has this schema's shape.
  const isOwn = (event: { readonly type: string } | v.InferOutput<S>): event is v.InferOutput<S> =>
    event.type === type;
  return {
    type,
    schema,
    adopt: (settings, event) =>
      isOwn(event) ? spec.write(settings, spec.logged(event)) : settings,
    eventOf: (settings) => spec.event(spec.read(settings)),
    differs: (a, b) => spec.read(a) !== spec.read(b),
    check: spec.check,
  };
}

/** Longest model id taken; real ids are far shorter. */
const MAX_MODEL_ID = 200;
const MODEL_ID = new RegExp(`^[^\\s\\p{Cc}]{1,${MAX_MODEL_ID}}$`, "u");

const MODEL = defineSetting(
  v.object({ type: v.literal("model"), ...EVENT_FIELDS, model: v.string() }),
)({
  logged: (event) => event.model,
  event: (model) => ({ type: "model", model }),
  read: (settings) => settings.model,
  write: (settings, model) => ({ ...settings, model }),
  // A model id the catalog does not know is used as-is (like `--model` and `DSH_MODEL`), with
  // generic settings; only a malformed one (empty, with whitespace, too long) is refused.
  check({ model }, catalog) {
    if (model === undefined || catalog.models().some((known) => known.id === model)) return;
    if (MODEL_ID.test(model)) return;
    const shown = model.slice(0, MAX_MODEL_ID);
    throw new InvalidInputError(`malformed model id: ${JSON.stringify(shown)}`, { model: shown });
  },
});

const EFFORT_SETTING = defineSetting(
  v.object({ type: v.literal("effort"), ...EVENT_FIELDS, effort: choiceSchema(EFFORT) }),
)({
  logged: (event) => event.effort,
  event: (effort) => ({ type: "effort", effort }),
  read: (settings) => settings.effort,
  write: (settings, effort) => ({ ...settings, effort }),
  check({ effort }) {
    if (effort === undefined || EFFORT.has(effort)) return;
    const shown = quoted(String(effort));
    throw new InvalidInputError(EFFORT.unknown(shown), { effort: shown });
  },
});

const SANDBOX_MODE = defineSetting(
  v.object({ type: v.literal("sandbox_mode"), ...EVENT_FIELDS, mode: SandboxMode }),
)({
  logged: (event) => event.mode,
  event: (mode) => ({ type: "sandbox_mode", mode }),
  read: (settings) => settings.knobs.sandboxMode,
  write: (settings, sandboxMode) => ({ ...settings, knobs: { ...settings.knobs, sandboxMode } }),
  check({ knobs }) {
    if (knobs === undefined || v.is(SandboxMode, knobs.sandboxMode)) return;
    throw new InvalidInputError(`unknown sandbox mode: ${String(knobs.sandboxMode)}`);
  },
});

const APPROVAL_POLICY = defineSetting(
  v.object({ type: v.literal("approval_policy"), ...EVENT_FIELDS, policy: ApprovalPolicy }),
)({
  logged: (event) => event.policy,
  event: (policy) => ({ type: "approval_policy", policy }),
  read: (settings) => settings.knobs.approvalPolicy,
  write: (settings, approvalPolicy) => ({
    ...settings,
    knobs: { ...settings.knobs, approvalPolicy },
  }),
  check({ knobs }) {
    if (knobs === undefined || v.is(ApprovalPolicy, knobs.approvalPolicy)) return;
    throw new InvalidInputError(`unknown approval policy: ${String(knobs.approvalPolicy)}`);
  },
});

/**
 * Every session setting, in the order a turn logs them and a change is checked. A first turn
 * logs them all, so a resumed session keeps its own settings whatever the defaults of the
 * process reopening it.
 */
export const SESSION_SETTINGS = [MODEL, EFFORT_SETTING, SANDBOX_MODE, APPROVAL_POLICY] as const;

/** The event schemas of the settings, for the log's schema. */
export const SETTING_EVENTS = SESSION_SETTINGS.map((setting) => setting.schema);

/** An event that records a setting. */
export type SettingEvent = v.InferOutput<(typeof SETTING_EVENTS)[number]>;
/** The types of the events that record a setting. */
export type SettingEventType = SettingEvent["type"];

const SETTING_TYPES: ReadonlySet<string> = new Set(SESSION_SETTINGS.map((setting) => setting.type));

/** Whether `event` records a setting: what folds that only follow the conversation skip. */
export function isSettingEvent<E extends { readonly type: string }>(
  event: E,
): event is Extract<E, { readonly type: SettingEventType }> {
  return SETTING_TYPES.has(event.type);
}

/**
 * Returns `change` when every setting it gives takes the value it gives; otherwise throws
 * InvalidInputError naming the first bad one.
 */
export function checkSettingsChange(
  change: Partial<SessionSettings>,
  catalog: SettingsCatalog,
): Partial<SessionSettings> {
  for (const setting of SESSION_SETTINGS) setting.check(change, catalog);
  return change;
}
