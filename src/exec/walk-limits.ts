/**
 * How much of a workspace one walk for `.git` entries may visit (`git-entries.ts`), apart from
 * the walk so that the config's `[limits]` reads them without loading it.
 */
export interface WalkLimits {
  readonly entries: number;
  readonly ms: number;
}

export const DEFAULT_WALK_LIMITS: WalkLimits = { entries: 1_000_000, ms: 5_000 };
