/**
 * The other paths a file or directory is visible under: a bind mount, or a second mount of
 * the same file system, shows the same inode at another place, and a mask over one path does
 * not hide the other. Read from `/proc/self/mountinfo` (Linux); elsewhere there are none.
 */
import { readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { isWithin } from "../paths.ts";

/** One line of `/proc/self/mountinfo`. */
export interface MountEntry {
  /** `major:minor` of the file system. */
  readonly device: string;
  /** The directory of that file system the mount shows. */
  readonly root: string;
  /** Where it is shown. */
  readonly mountPoint: string;
}

/** The mount table of this process's namespace; empty when it cannot be read. */
export function readMountTable(): MountEntry[] {
  try {
    return parseMountTable(readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    return [];
  }
}

/** The entries of a `mountinfo` text; malformed lines are skipped. */
export function parseMountTable(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    // id parent major:minor root mount-point options [optional...] - type source super-options
    const fields = line.split(" ");
    const [device, root, mountPoint] = [fields[2], fields[3], fields[4]];
    if (device === undefined || root === undefined || mountPoint === undefined) continue;
    entries.push({ device, root: unescapeField(root), mountPoint: unescapeField(mountPoint) });
  }
  return entries;
}

/**
 * The paths other than `target` (absolute, realpath'd, existing) where the same file or
 * directory shows, each checked to be the same device and inode. Never throws.
 */
export function mountAliases(target: string, mounts: readonly MountEntry[]): string[] {
  const own = identity(target);
  if (own === undefined) return [];
  let holder: MountEntry | undefined;
  for (const mount of mounts) {
    if (!isWithin(mount.mountPoint, target)) continue;
    if (holder === undefined || mount.mountPoint.length >= holder.mountPoint.length) holder = mount;
  }
  if (holder === undefined) return [];
  const inFileSystem = join(holder.root, relative(holder.mountPoint, target));
  const aliases = new Set<string>();
  for (const mount of mounts) {
    if (mount.device !== holder.device || !isWithin(mount.root, inFileSystem)) continue;
    const alias = join(mount.mountPoint, relative(mount.root, inFileSystem));
    if (alias !== target && identity(alias) === own) aliases.add(alias);
  }
  return [...aliases];
}

function identity(path: string): string | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}
