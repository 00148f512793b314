/**
 * The settings table: every choice setting dsh has, declared once. The valibot schemas (config
 * file, `[[models]]`, session log), the TypeScript types, the ACP select options, the slash
 * commands' hints and the `--help` text all derive from these declarations, so a new value or a
 * new setting is one edit here plus the code that acts on it. The names and values are public
 * (interface.md).
 */
import { type ChoiceValue, defineChoice } from "./choice.ts";

/** The reasoning effort of a session: config option `effort`, `/effort`, TOML `effort`. */
export const EFFORT = defineChoice("effort", ["off", "low", "high", "max"], "high");
export type Effort = ChoiceValue<typeof EFFORT>;

/** The names the `effort` select shows for each level. */
export const EFFORT_LABELS: Readonly<Record<Effort, string>> = {
  off: "Off",
  low: "Low",
  high: "High",
  max: "Max",
};

/**
 * How a model's reasoning is switched (`[[models]]` key `thinking`): DeepSeek's `thinking`
 * object, the `reasoning_effort` field, or not at all.
 */
export const THINKING = defineChoice("thinking", ["deepseek", "reasoning_effort", "none"], "none");
export type Thinking = ChoiceValue<typeof THINKING>;

/**
 * Whether a model takes an effort setting: the `effort` select is offered and `/effort` works
 * only then. A model whose switch is unknown takes none.
 */
export function takesEffort(thinking: Thinking | undefined): boolean {
  return thinking !== undefined && thinking !== "none";
}

/** Which field carries reasoning back in assistant messages (`[[models]]` key `reasoning_echo`). */
export const REASONING_ECHO = defineChoice(
  "reasoning_echo",
  ["reasoning_content", "reasoning", "none"],
  "reasoning_content",
);
export type ReasoningEcho = ChoiceValue<typeof REASONING_ECHO>;

/**
 * The sandbox backends: what the probe reports, what commands see as `DSH_SANDBOX`. `none` is
 * no backend at all (sandboxed modes then fail closed).
 */
export const SANDBOX_BACKEND = defineChoice(
  "sandbox backend",
  ["bwrap", "seatbelt", "none"],
  "none",
);
export type SandboxBackend = ChoiceValue<typeof SANDBOX_BACKEND>;

/** The backend asked for (`DSH_SANDBOX`, TOML `sandbox`): `auto` picks the platform's own. */
export const SANDBOX = defineChoice("sandbox", ["auto", ...SANDBOX_BACKEND.values], "auto");
export type SandboxPreference = ChoiceValue<typeof SANDBOX>;
