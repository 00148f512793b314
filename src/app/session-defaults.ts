/** The settings a new session starts with: the catalog's default model, the config's effort and knobs. */
import type { SessionSettings } from "../agent/types.ts";
import type { ModelCatalog } from "../llm/catalog.ts";
import type { Config } from "./config.ts";

export function sessionDefaults(config: Config, catalog: ModelCatalog): SessionSettings {
  return { model: catalog.default.id, effort: config.effort, knobs: config.knobs };
}
