/**
 * Session settings ↔ ACP config options (interface.md: `permission`, `model`, `effort`). Every
 * response carries the full list; a change is validated here and applied by the handle.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionSettings } from "../agent/types.ts";
import { InvalidInputError, quoted } from "../errors.ts";
import { PRESETS, presetOf } from "../permission/knobs.ts";
import { type PresetChoice, parsePreset, presetChoices } from "../permission/service.ts";
import { EFFORT, EFFORT_LABELS, type Thinking, takesEffort } from "../settings/table.ts";

/** A model the `model` select offers. */
export interface AcpModel {
  readonly id: string;
  readonly name: string;
  /**
   * How the model's reasoning is switched (as in the catalog's `ModelInfo`); the `effort`
   * select shows only for a model whose reasoning can be controlled.
   */
  readonly thinking?: Thinking;
}

const PRESET_LABELS: Readonly<Record<PresetChoice, { name: string; description: string }>> = {
  "read-only": {
    name: "Read only",
    description: "Commands may read anything and write nothing but temp",
  },
  "workspace-write": {
    name: "Workspace write",
    description:
      "Writes only under the session folder and temp, no network; asks before anything else",
  },
  "danger-full-access": { name: "Full access", description: "No sandbox, never asks" },
  custom: { name: "Custom", description: "Knobs that match no preset" },
};

/** The full option list for `settings`, in display order. */
export function configOptions(
  settings: SessionSettings,
  models: readonly AcpModel[],
): acp.SessionConfigOption[] {
  const options: acp.SessionConfigOption[] = [
    {
      type: "select",
      id: "permission",
      name: "Permission",
      category: "mode",
      currentValue: presetOf(settings.knobs),
      options: presetChoices(settings.knobs).map((value) => ({ value, ...PRESET_LABELS[value] })),
    },
    {
      type: "select",
      id: "model",
      name: "Model",
      category: "model",
      currentValue: settings.model,
      options: modelChoices(settings.model, models),
    },
  ];
  if (takesEffort(currentModel(settings.model, models)?.thinking)) {
    options.push({
      type: "select",
      id: "effort",
      name: "Effort",
      category: "thought_level",
      currentValue: settings.effort,
      options: EFFORT.values.map((value) => ({ value, name: EFFORT_LABELS[value] })),
    });
  }
  return options;
}

/**
 * The settings change one `session/set_config_option` asks for. Throws InvalidInputError for
 * an unknown option, a boolean value, or a value the option does not offer.
 */
export function configChange(
  request: acp.SetSessionConfigOptionRequest,
  settings: SessionSettings,
  models: readonly AcpModel[],
): Partial<SessionSettings> {
  const { configId } = request;
  if ("type" in request && request.type === "boolean") {
    throw new InvalidInputError(`config option ${quoted(configId)} is not a boolean`, {
      configId: quoted(configId),
    });
  }
  const value = String(request.value);
  const offered = configOptions(settings, models).find((o) => o.id === configId);
  if (offered === undefined) {
    throw new InvalidInputError(`unknown config option: ${quoted(configId)}`, {
      configId: quoted(configId),
    });
  }
  switch (configId) {
    case "permission":
      return { knobs: PRESETS[parsePreset(value)] };
    case "model":
      // The current model may be one this process's catalog does not know (a DSH_MODEL of
      // another run): offered, so choosing it again is no change rather than an error.
      if (value === settings.model) return {};
      if (modelChoices(settings.model, models).some((m) => m.value === value))
        return { model: value };
      break;
    case "effort":
      if (EFFORT.has(value)) return { effort: value };
      throw new InvalidInputError(EFFORT.unknown(quoted(value)), {
        configId,
        value: quoted(value),
      });
  }
  throw new InvalidInputError(`config option ${configId} has no value ${quoted(value)}`, {
    configId,
    value: quoted(value),
  });
}

function currentModel(id: string, models: readonly AcpModel[]): AcpModel | undefined {
  return models.find((m) => m.id === id);
}

/** The catalog's models, plus the current one when the catalog does not know it. */
function modelChoices(
  current: string,
  models: readonly AcpModel[],
): acp.SessionConfigSelectOption[] {
  const choices = models.map((m) => ({ value: m.id, name: m.name }));
  if (currentModel(current, models) === undefined) choices.push({ value: current, name: current });
  return choices;
}
