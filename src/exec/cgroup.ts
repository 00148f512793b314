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
  /** The `cgroup.procs` files the command's first process writes its pid to. */
  readonly procsFiles: readonly string[];
  /** The limit the command ran into, read once it ended. */
  hit(): LimitHit | undefined;
  /** SIGKILLs whatever is still in the groups and removes them. */
  remove(): Promise<void>;
}

export interface CgroupMaker {
  /** Groups limited to `limits`, or undefined where none can be made. */
  create(limits: CommandLimits): CommandCgroup | undefined;
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

/** Finds where groups can go; makes nothing until the first `create`. */
export function createCgroupMaker(logger: Logger): CgroupMaker {
  let places: Place[] | undefined;
  return {
    create(limits) {
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
      return {
        controllers: made.map(({ place }) => place.controller),
        procsFiles: [...new Set(made.map(({ dir }) => join(dir, "cgroup.procs")))],
        hit: () => made.map(({ place, dir }) => limitHit(place, dir)).find((h) => h !== undefined),
        remove: () => removeGroups([...new Set(made.map(({ dir }) => dir))]),
      };
    },
  };
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

function limitHit(place: Place, dir: string): LimitHit | undefined {
  if (place.controller === "pids") {
    return counter(readText(join(dir, "pids.events")), "max") > 0 ? "processes" : undefined;
  }
  const events = readText(join(dir, place.version === 2 ? "memory.events" : "memory.oom_control"));
  return counter(events, "oom_kill") > 0 ? "memory" : undefined;
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
    for (const dir of left) {
      for (const pid of readText(join(dir, "cgroup.procs")).split("\n").filter(Boolean)) {
        signalProcess(Number(pid), "SIGKILL");
      }
    }
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
