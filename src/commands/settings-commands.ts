/**
 * `/model`, `/effort` and `/permission`: each switches the session exactly as its config
 * option does, through the handle (and the permission service), then tells the surface.
 */
import type { SessionSettings } from "../agent/types.ts";
import { InvalidInputError, quoted } from "../errors.ts";
import { createPermissionService } from "../permission/service.ts";
import { EFFORT, takesEffort } from "../settings/table.ts";
import type { CommandResult, CommandSession, SlashCommand } from "./types.ts";

async function changed(
  session: CommandSession,
  settings: SessionSettings,
  text: string,
): Promise<CommandResult> {
  await session.settingsChanged?.(settings);
  return { type: "reply", text };
}

export const modelCommand: SlashCommand = {
  name: "model",
  description: "Show or switch the model",
  hint: "model id",
  argument: "ID",
  async run(args, session) {
    const models = session.models().map((m) => m.id);
    if (args === "") {
      const current = session.handle.settings().model;
      return { type: "reply", text: `model: ${current} (available: ${models.join(", ")})` };
    }
    // Any id `--model` takes: one the catalog does not know is used as-is.
    const settings = session.handle.configure({ model: args });
    const known = models.includes(settings.model) ? "" : " (not in the catalog: generic settings)";
    return changed(session, settings, `model: ${settings.model}${known}`);
  },
};

export const effortCommand: SlashCommand = {
  name: "effort",
  description: "Show or switch the reasoning effort",
  hint: EFFORT.values.join(" | "),
  argument: "LEVEL",
  async run(args, session) {
    const { model, effort } = session.handle.settings();
    if (!takesEffort(session.models().find((m) => m.id === model)?.thinking)) {
      throw new InvalidInputError(`model ${model} has no reasoning effort setting`, { model });
    }
    if (args === "") {
      return { type: "reply", text: `effort: ${effort} (${EFFORT.values.join(", ")})` };
    }
    const chosen = args.toLowerCase();
    if (!EFFORT.has(chosen)) {
      throw new InvalidInputError(EFFORT.unknown(quoted(args)), { effort: quoted(args) });
    }
    return changed(session, session.handle.configure({ effort: chosen }), `effort: ${chosen}`);
  },
};

export const permissionCommand: SlashCommand = {
  name: "permission",
  description: "Show or switch the permission preset",
  hint: "read-only | workspace-write | danger-full-access",
  argument: "PRESET",
  async run(args, session) {
    const permission = createPermissionService(session.handle);
    if (args === "") {
      const text = `permission: ${permission.current()} (${permission.choices().join(", ")})`;
      return { type: "reply", text };
    }
    const preset = permission.set(args);
    return changed(session, session.handle.settings(), `permission: ${preset}`);
  },
};
