/** The `[checkpoints]` table of the config file, and the settings it gives. */
import * as v from "valibot";

export interface CheckpointSettings {
  /** Off: no checkpoints are kept, and /undo, /rewind and /diff say so. */
  readonly enabled: boolean;
  /** The most the session's store may hold; over it the oldest turns go first. */
  readonly maxSizeMb: number;
}

export const DEFAULT_CHECKPOINT_SETTINGS: CheckpointSettings = { enabled: true, maxSizeMb: 1024 };

/** The `[checkpoints]` table of the config file. */
export const CheckpointsConfig = v.strictObject({
  enabled: v.optional(v.boolean()),
  /** The most one session's store may take on disk, in MiB. */
  max_size_mb: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1 << 20))),
});
export type CheckpointsConfig = v.InferOutput<typeof CheckpointsConfig>;

/** The settings of a `[checkpoints]` table, with defaults. */
export function checkpointSettingsOf(config: CheckpointsConfig | undefined): CheckpointSettings {
  return {
    enabled: config?.enabled ?? DEFAULT_CHECKPOINT_SETTINGS.enabled,
    maxSizeMb: config?.max_size_mb ?? DEFAULT_CHECKPOINT_SETTINGS.maxSizeMb,
  };
}
