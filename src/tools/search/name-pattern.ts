/**
 * Patterns that only look at an entry's name: `**\/x` or `**\/*x` where `x` has no glob
 * syntax. Bun's glob matches those against a path exactly when the path's last segment is `x`,
 * or ends with `x` (hidden segments included), so they are decided by string comparison, with
 * no native call per entry.
 */

/** `x` or `*x` (no `/`, no glob syntax in `x`): the text, and whether it is a suffix. */
export interface PlainName {
  readonly text: string;
  readonly suffix: boolean;
}

/** The plain name `segment` (one segment of a pattern) is, or undefined. */
export function plainName(segment: string): PlainName | undefined {
  const suffix = segment.startsWith("*");
  const text = suffix ? segment.slice(1) : segment;
  if (text === "" || /[*?[\]{}!\\/]/.test(text)) return undefined;
  return { text, suffix };
}

/** Whether an entry named `name` matches `plain`. */
export function matchesName(plain: PlainName, name: string): boolean {
  return plain.suffix ? name.endsWith(plain.text) : name === plain.text;
}

/**
 * A matcher equal to `new Bun.Glob(pattern).match` for relative, `/`-separated paths without a
 * trailing `/`: by name for `**\/x` and `**\/*x`, else Bun's glob.
 */
export function pathMatcher(pattern: string): (relative: string) => boolean {
  const plain = pattern.startsWith("**/") ? plainName(pattern.slice(3)) : undefined;
  if (plain === undefined) {
    const glob = new Bun.Glob(pattern);
    return (relative) => glob.match(relative);
  }
  // A suffix holds no `/`: the path ends with it exactly when its last segment does.
  if (plain.suffix) return (relative) => relative.endsWith(plain.text);
  const last = `/${plain.text}`;
  return (relative) => relative === plain.text || relative.endsWith(last);
}
