/**
 * Sizes and seeds of the soak loops. `DSH_SOAK=N` multiplies every loop's default size (CI
 * runs `DSH_SOAK=5`; long runs go higher); `DSH_SOAK_SEED` replays a run. Each loop prints its
 * seed with its counts, so any failure can be reproduced exactly.
 */

/** The size multiplier: 1 unless `DSH_SOAK` names a positive integer. */
export function soakScale(): number {
  const raw = process.env.DSH_SOAK;
  if (raw === undefined || raw.trim() === "") return 1;
  const scale = Number(raw);
  if (!Number.isInteger(scale) || scale < 1)
    throw new Error(`DSH_SOAK must be a positive integer, not "${raw}"`);
  return scale;
}

/** The run's seed: `DSH_SOAK_SEED`, else a fixed one (runs are reproducible by default). */
export function soakSeed(): number {
  const raw = process.env.DSH_SOAK_SEED;
  if (raw === undefined || raw.trim() === "") return 20_261_201;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed))
    throw new Error(`DSH_SOAK_SEED must be an integer, not "${raw}"`);
  return seed;
}

/** A small seeded generator (mulberry32): the same seed gives the same sequence everywhere. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      const item = items[int(0, items.length - 1)];
      if (item === undefined) throw new Error("pick from an empty list");
      return item;
    },
    chance: (p) => next() < p,
  };
}
