/**
 * The global kernel interfaces under `/proc` that the sandbox's own procfs would leave
 * writable. Root keeps write access to sysctls in a user namespace it owns (the files are
 * checked against its uid, not its capabilities), so `kernel.core_pattern` set from a
 * sandbox would run a program as host root at the next crash. The sandbox binds each of
 * these read-only over its fresh `/proc`; `/sys` is read-only with the rest of `/`.
 */
import { lstatSync, readdirSync } from "node:fs";
import type { Stats } from "node:fs";
import { join } from "node:path";

/** Entries of `/proc` that belong to processes, not to the kernel. */
const PER_PROCESS = new Set(["self", "thread-self"]);

/**
 * Every top-level `/proc` entry that is a writable file (sysrq-trigger, mtrr, ...) or a
 * directory holding one (sys, irq, bus, ...), as absolute paths; never a process's own entry.
 * Read from the host's `/proc`: what exists differs between kernels.
 */
export function kernelInterfaces(proc = "/proc"): string[] {
  let names: string[];
  try {
    names = readdirSync(proc);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names.sort()) {
    if (/^\d+$/.test(name) || PER_PROCESS.has(name)) continue;
    const path = `${proc}/${name}`;
    try {
      const stat = lstatSync(path);
      if (stat.isDirectory() ? holdsWritable(path, 0) : writableFile(stat)) found.push(path);
    } catch {
      // Gone, or not ours to look at: nothing to cover.
    }
  }
  return found;
}

/**
 * The entries of `kernel` that bwrap's own `--proc` already binds read-only (it covers `sys`,
 * `sysrq-trigger`, `irq` and `bus` where the sandbox's user could write to them, as root):
 * those a sandbox's `mountinfo` shows mounted read-only right on the sandbox's own proc (the
 * last `proc` mounted at `/proc`) with dsh's own bind over that, not a mount of the host's
 * `/proc` that the root's bind brings along. Read from a sandbox made with the full plan (the probe's); a later sandbox of
 * the same user and bwrap gets the same cover, so dsh's bind of these repeats it.
 */
export function coveredByBwrap(kernel: readonly string[], mountinfo: string): string[] {
  const mounts = mountinfo
    .split("\n")
    .map((line) => {
      const [id, parent, , , point, options] = line.split(" ");
      const fsType = line.split(" - ")[1]?.split(" ")[0];
      return { id, parent, point, readOnly: options?.split(",").includes("ro") === true, fsType };
    })
    .filter((mount) => mount.point !== undefined);
  const proc = mounts.findLast((mount) => mount.point === "/proc" && mount.fsType === "proc");
  if (proc === undefined) return [];
  // bwrap's cover sits right on the sandbox's proc, and dsh's own bind of the entry over it.
  const covers = (entry: string) =>
    mounts.some(
      (cover) =>
        cover.point === entry &&
        cover.parent === proc.id &&
        cover.readOnly &&
        mounts.some((bind) => bind.point === entry && bind.parent === cover.id),
    );
  return kernel.filter(covers);
}

/** Deeper than any kernel table nests; past it a directory counts as holding one. */
const MAX_DEPTH = 8;

function holdsWritable(dir: string, depth: number): boolean {
  if (depth > MAX_DEPTH) return true;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const stat = lstatSync(path);
      if (stat.isDirectory() ? holdsWritable(path, depth + 1) : writableFile(stat)) return true;
    } catch {
      // Gone while we looked.
    }
  }
  return false;
}

/** A link leads into a process's own entries (`self`, `net`, `mounts`); only files count. */
function writableFile(stat: Stats): boolean {
  return stat.isFile() && (stat.mode & 0o222) !== 0;
}
