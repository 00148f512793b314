/**
 * The global kernel interfaces under `/proc` that the sandbox's own procfs would leave
 * writable. Root keeps write access to sysctls in a user namespace it owns (the files are
 * checked against its uid, not its capabilities), so `kernel.core_pattern` set from a
 * sandbox would run a program as host root at the next crash. The sandbox binds each of
 * these read-only over its fresh `/proc`; `/sys` is read-only with the rest of `/`.
 */
import { lstatSync, readdirSync } from "node:fs";

/** Entries of `/proc` that belong to processes, not to the kernel. */
const PER_PROCESS = new Set(["self", "thread-self"]);

/**
 * Every top-level `/proc` entry that is a directory (sys, irq, bus, fs, driver, ...) or a
 * writable file (sysrq-trigger, mtrr, ...), as absolute paths; never a process's own entry.
 * Read from the host's `/proc` on each call: what exists differs between kernels.
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
      // Links (`self`, `net`, `mounts`) lead into a process's own entries.
      const stat = lstatSync(path);
      if (stat.isDirectory() || (stat.isFile() && (stat.mode & 0o222) !== 0)) found.push(path);
    } catch {
      // Gone, or not ours to look at: nothing to cover.
    }
  }
  return found;
}
