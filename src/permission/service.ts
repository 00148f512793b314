/**
 * The permission service of one session: the only place a preset id the user picked becomes
 * the two knobs. Surfaces (the ACP `permission` option, the chat's `/permission`) go through
 * it; the session itself logs one event per knob that changed.
 */
import * as v from "valibot";
import { InvalidInputError, quoted } from "../errors.ts";
import { type Knobs, PRESETS, PresetId, presetOf } from "./knobs.ts";

/** What a preset picker shows: a preset, or `custom` for knobs that match none. */
export type PresetChoice = PresetId | "custom";

/** Whatever holds a session's knobs; an `AgentHandle` is one. */
export interface KnobHolder {
  settings(): { readonly knobs: Knobs };
  /** Applies the change (at once during a turn, else at the next prompt); returns the result. */
  configure(change: { readonly knobs: Knobs }): { readonly knobs: Knobs };
}

export interface PermissionService {
  /** The preset the session's effective knobs match, or `custom`. */
  current(): PresetChoice;
  /** The values a picker offers, in display order: every preset, then `custom` while current. */
  choices(): PresetChoice[];
  /**
   * Switches both knobs to the preset's. Throws InvalidInputError for `custom` (it names no
   * knobs) or an unknown id; returns the preset now in force.
   */
  set(preset: string): PresetId;
}

/** The service over one session's knobs. */
export function createPermissionService(holder: KnobHolder): PermissionService {
  return {
    current: () => presetOf(holder.settings().knobs),
    choices: () => presetChoices(holder.settings().knobs),
    set(preset) {
      const id = parsePreset(preset);
      holder.configure({ knobs: PRESETS[id] });
      return id;
    },
  };
}

/**
 * A preset id the user picked. InvalidInputError for `custom` and unknown ids, so every
 * surface rejects them the same way.
 */
export function parsePreset(preset: string): PresetId {
  if (v.is(PresetId, preset)) return preset;
  if (preset === "custom") {
    throw new InvalidInputError(
      "custom cannot be chosen: it stands for knobs that match no preset (set them in the config file)",
      { preset },
    );
  }
  const known = PresetId.options.join(", ");
  throw new InvalidInputError(`unknown permission preset: ${quoted(preset)} (${known})`, {
    preset: quoted(preset),
  });
}

/** Every preset, plus `custom` when `knobs` match none. */
export function presetChoices(knobs: Knobs): PresetChoice[] {
  const choices: PresetChoice[] = [...PresetId.options];
  if (presetOf(knobs) === "custom") choices.push("custom");
  return choices;
}
