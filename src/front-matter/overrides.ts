/**
 * Overrides between places: of several entries with one name, the first (the place searched
 * first: the project before the user) is used and the others are shadowed by it.
 */

/** An entry another of the same name overrides. */
export interface Shadowed<T> {
  readonly entry: T;
  readonly by: T;
}

/** `entries` split into the first of each name, in order, and the ones those shadow. */
export function firstOfEachName<T>(
  entries: readonly T[],
  nameOf: (entry: T) => string,
): { readonly kept: T[]; readonly shadowed: Shadowed<T>[] } {
  const byName = new Map<string, T>();
  const kept: T[] = [];
  const shadowed: Shadowed<T>[] = [];
  for (const entry of entries) {
    const holder = byName.get(nameOf(entry));
    if (holder !== undefined) {
      shadowed.push({ entry, by: holder });
      continue;
    }
    byName.set(nameOf(entry), entry);
    kept.push(entry);
  }
  return { kept, shadowed };
}
