/**
 * A cgroup per sandboxed command, where dsh may make one: beside dsh's own cgroup in the
 * `pids` and `memory` hierarchies (cgroup v1), or below it where cgroup v2 already delegates
 * those controllers to its children. Usually only root may, and root is also who needs it:
 * the kernel exempts root from RLIMIT_NPROC, so only `pids.max` stops a fork bomb of root's.
 *
 * The command's first process joins the groups before it starts anything (`supervisor.ts`);
 * afterwards the counters say whether a limit was hit. Groups are named `dsh-<pid>-<random>`
 * (several runners in one process must never meet on a name); a dsh that was killed leaves
 * empty ones, which the next dsh removes.
 *
 * A command's first process joining a group the kernel has never held a process in costs it
 * several milliseconds, so a maker keeps the groups of ended commands and gives one to a later
 * command once nothing is left in it (SIGKILLed, then checked empty), its limit counters read
 * at the hand-over so that only the new command's hits count.
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { errorCode } from "../error-code.ts";
import type { Logger } from "../log.ts";
import type { CommandLimits, LimitHit } from "./limits.ts";

/** One command's cgroups. */
export interface CommandCgroup {
  /** The controllers that bound the command. */
  readonly controllers: readonly ("pids" | "memory")[];
  /**
   * The files the command's first process joins the groups through, writing 0 (itself): on
   * cgroup v1 `tasks`, which moves that one thread, sparing the command the wait for every
   * CPU that moving a whole process takes (the shell that writes it has no other thread); on
   * v2 `cgroup.procs`.
   */
  readonly procsFiles: readonly string[];
  /** The limit the command ran into, read once it ended. */
  hit(): LimitHit | undefined;
  /** SIGKILLs whatever is still in the groups and removes them. */
  remove(): Promise<void>;
  /**
   * Once the command has ended: SIGKILLs whatever is still in the groups and keeps them for a
   * later command of the maker once they are empty, else removes them.
   */
  release(): Promise<void>;
}

export interface CgroupMaker {
  /** Groups limited to `limits`, or undefined where none can be made. */
  create(limits: CommandLimits): CommandCgroup | undefined;
  /** Removes the groups kept for later commands. */
  close(): Promise<void>;
}

interface Place {
  readonly controller: "pids" | "memory";
  readonly version: 1 | 2;
  /** The directory new groups go into. */
  readonly parent: string;
}

const ROOT = "/sys/fs/cgroup";
const NAME = /^dsh-(\d+)-[0-9a-f]{12}$/;
const REMOVE_WITHIN_MS = 2_000;
/** Ended commands' groups a maker keeps at most. */
const KEPT = 4;

/** One command's groups: a directory per controller. */
interface Groups {
  readonly made: readonly { readonly place: Place; readonly dir: string }[];
  readonly limits: CommandLimits;
}

/** Finds where groups can go; makes nothing until the first `create`. */
export function createCgroupMaker(logger: Logger): CgroupMaker {
  let places: Place[] | undefined;
  const kept: Groups[] = [];
  const handOut = (groups: Groups): CommandCgroup => {
    const dirs = [...new Set(groups.made.map(({ dir }) => dir))];
    // The counters only grow: a hit is one past what they held at the hand-over.
    const before = groups.made.map(({ place, dir }) => hitCount(place, dir));
    return {
      controllers: groups.made.map(({ place }) => place.controller),
      procsFiles: [
        ...new Set(
          groups.made.map(({ place, dir }) =>
            join(dir, place.version === 1 ? "tasks" : "cgroup.procs"),
          ),
        ),
      ],
      hit: () =>
        groups.made
          .map(({ place, dir }, i) =>
            hitCount(place, dir) > (before[i] ?? 0) ? hitKind(place) : undefined,
          )
          .find((hit) => hit !== undefined),
      remove: () => removeGroups(dirs),
      async release() {
        if (kept.length < KEPT && (await emptied(dirs))) kept.push(groups);
        else await removeGroups(dirs);
      },
    };
  };
  return {
    async close() {
      const dirs = kept.splice(0).flatMap((groups) => groups.made.map(({ dir }) => dir));
      await removeGroups([...new Set(dirs)]);
    },
    create(limits) {
      const reusable = kept.findIndex((groups) => sameLimits(groups.limits, limits));
      if (reusable >= 0) {
        const [groups] = kept.splice(reusable, 1);
        const dirs = groups?.made.map(({ dir }) => dir) ?? [];
        // Nothing of an earlier command may be in a group a new one joins.
        if (groups !== undefined && dirs.every((dir) => processesIn(dir).length === 0)) {
          return handOut(groups);
        }
        void removeGroups(dirs);
      }
      if (places === undefined) {
        places = findPlaces();
        for (const place of places) removeStale(place.parent);
      }
      const name = `dsh-${process.pid}-${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
      const made: { place: Place; dir: string }[] = [];
      for (const place of [...places]) {
        const dir = join(place.parent, name);
        try {
          mkdirSync(dir);
        } catch (error) {
          // Not ours to make here (read-only cgroupfs, no permission): stop trying.
          if (errorCode(error) !== "EEXIST") places = places.filter((p) => p !== place);
          logger.info("no per-command cgroup for this limit", {
            controller: place.controller,
            parent: place.parent,
            error: String(error),
          });
          continue;
        }
        try {
          writeLimit(place, dir, limits);
          made.push({ place, dir });
        } catch (error) {
          tryRmdir(dir);
          logger.warn("a per-command cgroup did not take its limit", {
            controller: place.controller,
            error: String(error),
          });
        }
      }
      if (made.length === 0) return undefined;
      return handOut({ made, limits });
    },
  };
}

function sameLimits(a: CommandLimits, b: CommandLimits): boolean {
  return a.processes === b.processes && a.memoryBytes === b.memoryBytes;
}

function processesIn(dir: string): number[] {
  return readText(join(dir, "cgroup.procs")).split("\n").filter(Boolean).map(Number);
}

/** SIGKILLs what is in the groups until they are empty; false when they are not in time. */
async function emptied(dirs: readonly string[]): Promise<boolean> {
  const deadline = performance.now() + REMOVE_WITHIN_MS;
  for (;;) {
    const left = dirs.flatMap(processesIn);
    if (left.length === 0) return true;
    for (const pid of left) signalProcess(pid, "SIGKILL");
    if (performance.now() > deadline) return false;
    await Bun.sleep(10);
  }
}

function findPlaces(): Place[] {
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return [];
  }
  const entries = lines.flatMap((line) => {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    return match === null
      ? []
      : [{ controllers: (match[2] ?? "").split(","), path: match[3] ?? "/" }];
  });
  if (existsSync(join(ROOT, "cgroup.controllers"))) {
    const own = entries.find((entry) => entry.controllers.join() === "");
    if (own === undefined) return [];
    const parent = join(ROOT, own.path);
    const delegated = readText(join(parent, "cgroup.subtree_control")).split(/\s+/);
    return (["pids", "memory"] as const)
      .filter((controller) => delegated.includes(controller))
      .map((controller) => ({ controller, version: 2, parent }));
  }
  return (["pids", "memory"] as const).flatMap((controller) => {
    const entry = entries.find((e) => e.controllers.includes(controller));
    const parent = entry === undefined ? undefined : join(ROOT, controller, entry.path);
    return parent !== undefined && existsSync(parent)
      ? [{ controller, version: 1 as const, parent }]
      : [];
  });
}

function writeLimit(place: Place, dir: string, limits: CommandLimits): void {
  if (place.controller === "pids") {
    writeFileSync(join(dir, "pids.max"), String(limits.processes));
  } else {
    const file = place.version === 2 ? "memory.max" : "memory.limit_in_bytes";
    writeFileSync(join(dir, file), String(limits.memoryBytes));
  }
}

/** How often the group's limit was hit since it was made. */
function hitCount(place: Place, dir: string): number {
  if (place.controller === "pids") return counter(readText(join(dir, "pids.events")), "max");
  const events = readText(join(dir, place.version === 2 ? "memory.events" : "memory.oom_control"));
  return counter(events, "oom_kill");
}

function hitKind(place: Place): LimitHit {
  return place.controller === "pids" ? "processes" : "memory";
}

/** `key N` out of a cgroup's flat keyed file; 0 when absent. */
function counter(text: string, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, "m").exec(text);
  return match === null ? 0 : Number(match[1]);
}

async function removeGroups(dirs: readonly string[]): Promise<void> {
  const deadline = performance.now() + REMOVE_WITHIN_MS;
  let left = [...dirs];
  while (left.length > 0) {
    for (const dir of left) for (const pid of processesIn(dir)) signalProcess(pid, "SIGKILL");
    left = left.filter((dir) => !tryRmdir(dir));
    if (left.length === 0 || performance.now() > deadline) return;
    await Bun.sleep(10);
  }
}

/** Removes the cgroups of dsh processes that are gone; returns the ones still busy. */
function removeStale(parent: string): string[] {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const pid = NAME.exec(name)?.[1];
      return pid !== undefined && !signalProcess(Number(pid), 0);
    })
    .map((name) => join(parent, name))
    .filter((dir) => !tryRmdir(dir));
}

/**
 * Removes every cgroup left by a dsh process that is gone, waiting (bounded) for the ones
 * the kernel still calls busy; what a new dsh does at its first command, without the wait.
 */
export async function removeStaleCgroups(): Promise<void> {
  const parents = [...new Set(findPlaces().map((place) => place.parent))];
  const deadline = performance.now() + REMOVE_WITHIN_MS;
  while (parents.flatMap(removeStale).length > 0 && performance.now() < deadline) {
    await Bun.sleep(10);
  }
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return errorCode(error) === "ENOENT";
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Sends `signal` to one process; false when it no longer exists. */
function signalProcess(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}
