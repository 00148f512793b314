/**
 * A session's checkpoints: before and after each prompt turn, the tree of every workspace root
 * (the cwd and each added directory) in the session's shadow store, under
 * `$DSH_HOME/checkpoints/<sessionId>/`. `/undo`, `/rewind` and `/diff` are plans over these
 * trees; the store is bounded in size (oldest turns go first) and deleted with the session.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { Logger } from "../log.ts";
import { isWithin } from "../paths.ts";
import type { CheckpointSettings } from "./config.ts";
import { type RootSnapshots, rootSnapshots } from "./incremental-snapshot.ts";
import { CheckpointError, type ShadowGit, findGit, shadowGit } from "./shadow-git.ts";
import { type RestoreReport, changedPaths, restorePaths, treeDiff } from "./tree-ops.ts";
import { type TreeWatcher, loadTreeWatcher } from "./tree-watch.ts";

const Trees = v.record(v.string(), v.string());
const TurnRecord = v.object({
  turnId: v.string(),
  before: Trees,
  after: v.optional(Trees),
  undone: v.optional(v.boolean()),
});
const Records = v.object({
  version: v.literal(1),
  turns: v.array(TurnRecord),
  /** Turns dropped to keep the store under its size limit, oldest first. */
  dropped: v.optional(v.array(v.string())),
});
type TurnRecord = v.InferOutput<typeof TurnRecord>;
type Records = v.InferOutput<typeof Records>;

/** What a restore would do in one root. */
export interface RootPlan {
  readonly root: string;
  /** The tree the files go back to. */
  readonly tree: string;
  /** Paths dsh changed in the turns undone, to put back. */
  readonly paths: readonly string[];
  /** Of those, the ones changed again since (outside dsh): asked about before they are overwritten. */
  readonly conflicts: readonly string[];
}

export interface RestorePlan {
  /** The turns whose changes go back, oldest first. */
  readonly turnIds: readonly string[];
  readonly roots: readonly RootPlan[];
}

export type PlanResult =
  | { readonly type: "plan"; readonly plan: RestorePlan }
  | { readonly type: "none"; readonly reason: string };

export interface RootReport extends RestoreReport {
  readonly root: string;
  /** Conflicting files left as they are. */
  readonly kept: readonly string[];
}

export interface SessionCheckpoints {
  /** Why there are no checkpoints (git missing, turned off), or undefined when there are. */
  readonly unavailable: string | undefined;
  /** Adds a workspace root (an added directory); its first snapshot is taken now. */
  addRoot(root: string): void;
  /** Records the workspace before prompt turn `turnId`. */
  before(turnId: string): Promise<void>;
  /** Records it after; returns the ids of turns dropped to stay under the size limit. */
  after(turnId: string): Promise<readonly string[]>;
  /** The plan that undoes the last turn that changed files and is not undone yet. */
  undoPlan(): Promise<PlanResult>;
  /** The plan that puts the files back to before `turnIds[0]` (the turns rewound, in order). */
  rewindPlan(turnIds: readonly string[]): Promise<PlanResult>;
  /** Carries a plan out; conflicting files are overwritten only with `overwriteConflicts`. */
  apply(plan: RestorePlan, overwriteConflicts: boolean): Promise<RootReport[]>;
  /** What the session changed since its first checkpoint, or in its last `turns` turns. */
  diff(turns?: number): Promise<string>;
  /** Removes the store (the session was deleted). */
  remove(): void;
  /** Ends the watches that make checkpoints incremental (the session ended). */
  close(): void;
}

export interface SessionCheckpointsOptions {
  readonly home: string;
  readonly sessionId: string;
  readonly roots: readonly string[];
  readonly settings: CheckpointSettings;
  readonly path: string | undefined;
  /** The user's home: a root that is it (or holds it), or `/`, gets no checkpoints. */
  readonly userHome?: string;
  readonly logger: Logger;
  /** What watches the roots between checkpoints (default: inotify where there is one). */
  readonly watcher?: () => Promise<TreeWatcher | undefined>;
}

/** Where a session's shadow store lies. */
export function checkpointDir(home: string, sessionId: string): string {
  return join(home, "checkpoints", sessionId);
}

/** Deletes a session's store, if it has one. Never throws. */
export function removeCheckpoints(home: string, sessionId: string): void {
  rmSync(checkpointDir(home, sessionId), { recursive: true, force: true });
}

export function openSessionCheckpoints(options: SessionCheckpointsOptions): SessionCheckpoints {
  const git = options.settings.enabled ? findGit(options.path, options.roots) : undefined;
  const unavailable = unavailableReason(options, git);
  if (git === undefined || unavailable !== undefined) return disabled(unavailable ?? "");
  const store = openStore(options, git);
  const { roots, serial, safely, snapshotAll } = store;
  return {
    unavailable: undefined,
    addRoot(root) {
      if (roots.includes(root)) return;
      roots.push(root);
      void safely("stage an added directory", () => store.snapshotsOf(root).snapshot(), "");
    },
    async before(turnId) {
      const trees = await safely("record a checkpoint", snapshotAll, undefined);
      if (trees === undefined) return;
      store.records = {
        ...store.records,
        turns: [...store.records.turns, { turnId, before: trees }],
      };
      store.save();
    },
    async after(turnId) {
      const record = store.records.turns.findLast((turn) => turn.turnId === turnId);
      if (record === undefined) return [];
      const trees = await safely("record a checkpoint", snapshotAll, undefined);
      if (trees === undefined) return [];
      record.after = trees;
      store.save();
      return safely("keep the checkpoints under their size limit", () => bound(store), []);
    },
    undoPlan: () => serial(() => undoPlanOf(store)),
    rewindPlan: (turnIds) => serial(() => rewindPlanOf(store, turnIds)),
    apply: (restore, overwrite) => serial(() => applyPlan(store, restore, overwrite)),
    diff: (turns) => serial(() => diffOf(store, turns)),
    remove() {
      store.close();
      rmSync(store.dir, { recursive: true, force: true });
    },
    close: () => store.close(),
  };
}

/** Why a session gets no checkpoints, or undefined when it gets them. */
function unavailableReason(
  options: SessionCheckpointsOptions,
  git: string | undefined,
): string | undefined {
  if (!options.settings.enabled)
    return "checkpoints are turned off ([checkpoints] enabled = false)";
  const broad = options.roots.find(
    (root) => root === "/" || (options.userHome !== undefined && isWithin(root, options.userHome)),
  );
  if (broad !== undefined) {
    return `dsh keeps no checkpoints of ${broad}: it is / or holds your home; open a project directory instead`;
  }
  return git === undefined
    ? "git is not installed, and dsh keeps its checkpoints with git: install git to get /undo, /rewind and /diff"
    : undefined;
}

/** One session's store: its roots, their gits, its records, and its one queue of git work. */
interface Store {
  readonly options: SessionCheckpointsOptions;
  readonly dir: string;
  readonly gitDir: string;
  readonly roots: string[];
  gitOf(root: string): ShadowGit;
  /** The snapshots of `root`, incremental where it is watched. */
  snapshotsOf(root: string): RootSnapshots;
  /** Ends every root's watches. */
  close(): void;
  /** Tells every root the store was pruned (its last tree may have gone). */
  pruned(): void;
  records: Records;
  /** Writes the records; a failure (a full disk) costs that checkpoint, never the turn. */
  save(): void;
  /** The store's size after its last bounding (0: never bounded). */
  settledBytes: number;
  /** Runs `work` after every git operation queued before it: they never overlap. */
  serial<T>(work: () => Promise<T>): Promise<T>;
  /** `serial`, a failure logged and `fallback` returned. */
  safely<T>(what: string, work: () => Promise<T>, fallback: T): Promise<T>;
  /** The tree of every root now. */
  snapshotAll(): Promise<Record<string, string>>;
}

function openStore(options: SessionCheckpointsOptions, git: string): Store {
  const dir = checkpointDir(options.home, options.sessionId);
  const gitDir = join(dir, "git");
  const recordsFile = join(dir, "turns.json");
  const gits = new Map<string, ShadowGit>();
  const snapshots = new Map<string, RootSnapshots>();
  const watcher = options.watcher ?? (() => loadTreeWatcher());
  let queue: Promise<unknown> = Promise.resolve();
  const store: Store = {
    options,
    dir,
    gitDir,
    roots: [...options.roots],
    gitOf(root) {
      let found = gits.get(root);
      if (found === undefined) {
        const indexFile = join(dir, `index-${rootKey(root)}`);
        found = shadowGit({ git, gitDir, root, indexFile, path: options.path });
        gits.set(root, found);
      }
      return found;
    },
    snapshotsOf(root) {
      let found = snapshots.get(root);
      if (found === undefined) {
        found = rootSnapshots(store.gitOf(root), root, watcher);
        snapshots.set(root, found);
      }
      return found;
    },
    close() {
      for (const root of snapshots.values()) root.close();
    },
    pruned() {
      for (const root of snapshots.values()) root.pruned();
    },
    records: readRecords(recordsFile, options.logger),
    save() {
      const tmp = `${recordsFile}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify(store.records));
        renameSync(tmp, recordsFile);
      } catch (error) {
        const sessionId = options.sessionId;
        options.logger.warn("could not save the checkpoint records", { sessionId, error });
      }
    },
    settledBytes: 0,
    serial(work) {
      const next = queue.then(work, work);
      queue = next.catch(() => undefined);
      return next;
    },
    async safely(what, work, fallback) {
      try {
        return await store.serial(work);
      } catch (error) {
        options.logger.warn(`could not ${what}`, { sessionId: options.sessionId, error });
        return fallback;
      }
    },
    async snapshotAll() {
      const trees: Record<string, string> = {};
      for (const root of store.roots) trees[root] = await store.snapshotsOf(root).snapshot();
      return trees;
    },
  };
  return store;
}

/** What restoring the files to before `targets[0]` would do: the paths those turns changed. */
async function planFor(store: Store, targets: readonly TurnRecord[]): Promise<PlanResult> {
  const first = targets[0];
  if (first === undefined) return { type: "none", reason: "no turn to go back to" };
  const now = await store.snapshotAll();
  const planned: RootPlan[] = [];
  for (const root of store.roots) {
    const tree = first.before[root];
    if (tree === undefined) continue;
    const git = store.gitOf(root);
    const touched = new Set<string>();
    for (const turn of targets) {
      const before = turn.before[root];
      const after = turn.after?.[root] ?? now[root];
      if (before === undefined || after === undefined) continue;
      for (const path of await changedPaths(git, before, after)) touched.add(path);
    }
    const last = targets.at(-1)?.after?.[root] ?? now[root] ?? tree;
    const since = new Set(await changedPaths(git, last, now[root] ?? last));
    const paths = [...touched].sort();
    planned.push({ root, tree, paths, conflicts: paths.filter((path) => since.has(path)) });
  }
  return { type: "plan", plan: { turnIds: targets.map((t) => t.turnId), roots: planned } };
}

function droppedNote(store: Store): string {
  return `dropped to keep the store under ${store.options.settings.maxSizeMb} MB ([checkpoints] max_size_mb)`;
}

async function undoPlanOf(store: Store): Promise<PlanResult> {
  const now = await store.snapshotAll();
  const { turns } = store.records;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i];
    if (turn === undefined || turn.undone === true) continue;
    if (await changedFiles(store, turn, now)) return planFor(store, [turn]);
  }
  const reason =
    (store.records.dropped?.length ?? 0) > 0
      ? `no turn left to undo: older checkpoints were ${droppedNote(store)}`
      : "no turn of this session changed files";
  return { type: "none", reason };
}

/**
 * Turns that ran no tool changed nothing and have no record: the files go back to before the
 * first of `turnIds` that has one. One whose record was dropped cannot be reached.
 */
async function rewindPlanOf(store: Store, turnIds: readonly string[]): Promise<PlanResult> {
  if (turnIds.some((id) => store.records.dropped?.includes(id) === true)) {
    return { type: "none", reason: `the checkpoint of that turn was ${droppedNote(store)}` };
  }
  const targets = store.records.turns.filter((turn) => turnIds.includes(turn.turnId));
  if (targets.length === 0) return { type: "none", reason: "none of those turns changed files" };
  return planFor(store, targets);
}

async function applyPlan(
  store: Store,
  restore: RestorePlan,
  overwriteConflicts: boolean,
): Promise<RootReport[]> {
  const reports: RootReport[] = [];
  for (const root of restore.roots) {
    const conflicts = new Set(root.conflicts);
    const paths = overwriteConflicts
      ? root.paths
      : root.paths.filter((path) => !conflicts.has(path));
    const scratch = join(store.dir, `scratch-${rootKey(root.root)}`);
    const git = store.gitOf(root.root);
    const report = await restorePaths(git, root.root, root.tree, paths, scratch);
    reports.push({ root: root.root, ...report, kept: overwriteConflicts ? [] : root.conflicts });
  }
  for (const turn of store.records.turns) {
    if (restore.turnIds.includes(turn.turnId)) turn.undone = true;
  }
  store.save();
  return reports;
}

async function diffOf(store: Store, turns: number | undefined): Promise<string> {
  const now = await store.snapshotAll();
  const recorded = store.records.turns;
  const from = turns === undefined ? recorded[0] : recorded.at(-Math.max(1, turns));
  if (from === undefined) return "";
  const parts: string[] = [];
  for (const root of store.roots) {
    const base = from.before[root];
    const current = now[root];
    if (base === undefined || current === undefined) continue;
    const text = await treeDiff(store.gitOf(root), base, current);
    if (text === "") continue;
    parts.push(store.roots.length > 1 ? `# ${root}\n${text}` : text);
  }
  return parts.join("\n");
}

/** Whether `turn` changed a file (in any root) between its before and after. */
async function changedFiles(
  store: Store,
  turn: TurnRecord,
  now: Record<string, string>,
): Promise<boolean> {
  for (const root of store.roots) {
    const before = turn.before[root];
    const after = turn.after?.[root] ?? now[root];
    if (before === undefined || after === undefined || before === after) continue;
    if ((await changedPaths(store.gitOf(root), before, after)).length > 0) return true;
  }
  return false;
}

/** Drops the oldest turns while the store is over its limit; returns their ids. */
async function bound(store: Store): Promise<string[]> {
  const { options, gitDir } = store;
  const limit = options.settings.maxSizeMb * 1024 * 1024;
  // A workspace bigger than the limit on its own is not repacked again every turn: only once
  // the store grew by a tenth of the limit since.
  if (storeBytes(gitDir) <= Math.max(limit, store.settledBytes + limit / 10)) return [];
  const root = store.roots[0];
  if (root === undefined) return [];
  const git = store.gitOf(root);
  const dropped: string[] = [];
  for (;;) {
    await keepOnly(git, store.records.turns);
    store.pruned();
    if (storeBytes(gitDir) <= limit || store.records.turns.length <= 1) break;
    const oldest = store.records.turns.shift();
    if (oldest !== undefined) dropped.push(oldest.turnId);
  }
  store.settledBytes = storeBytes(gitDir);
  if (dropped.length > 0) {
    store.records = {
      ...store.records,
      dropped: [...(store.records.dropped ?? []), ...dropped],
    };
    store.save();
    options.logger.info("dropped old checkpoints to stay under the size limit", {
      sessionId: options.sessionId,
      dropped: dropped.length,
    });
  }
  return dropped;
}

/** Points one ref at each tree still recorded, then packs and prunes everything else. */
async function keepOnly(git: ShadowGit, turns: readonly TurnRecord[]): Promise<void> {
  const trees = new Set<string>();
  for (const turn of turns) {
    for (const tree of [...Object.values(turn.before), ...Object.values(turn.after ?? {})]) {
      trees.add(tree);
    }
  }
  const listed = await git.text(["for-each-ref", "--format=%(refname)", "refs/keep/"]);
  const existing = new Set(listed.split("\n").filter((ref) => ref !== ""));
  const wanted = new Set([...trees].map((tree) => `refs/keep/${tree}`));
  // One transaction may name a ref once: refs kept stay as they are.
  const commands = [
    ...[...existing].filter((ref) => !wanted.has(ref)).map((ref) => `delete ${ref}`),
    ...[...wanted]
      .filter((ref) => !existing.has(ref))
      .map((ref) => `update ${ref} ${ref.slice("refs/keep/".length)}`),
  ];
  if (commands.length > 0) await git.run(["update-ref", "--stdin"], `${commands.join("\n")}\n`);
  await git.run(["repack", "-a", "-d", "-q"]);
  await git.run(["prune-packed"]);
  await git.run(["prune", "--expire=now"]);
}

/** Bytes the store's objects take on disk. */
function storeBytes(gitDir: string): number {
  let total = 0;
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const stat = statSync(path);
        if (stat.isDirectory()) walk(path);
        else total += stat.size;
      } catch {
        // Gone meanwhile.
      }
    }
  };
  walk(join(gitDir, "objects"));
  return total;
}

function rootKey(root: string): string {
  return createHash("sha256").update(root).digest("hex").slice(0, 16);
}

function readRecords(file: string, logger: Logger): Records {
  try {
    const parsed = v.safeParse(Records, JSON.parse(readFileSync(file, "utf8")));
    if (parsed.success) return parsed.output;
    logger.warn("the checkpoint records do not validate; starting them again", { file });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      logger.warn("could not read the checkpoint records; starting them again", { file, error });
    }
  }
  return { version: 1, turns: [] };
}

/** Checkpoints that say why there are none. */
function disabled(reason: string): SessionCheckpoints {
  const none = async (): Promise<PlanResult> => ({ type: "none", reason });
  return {
    unavailable: reason,
    addRoot() {},
    async before() {},
    async after() {
      return [];
    },
    undoPlan: none,
    rewindPlan: none,
    async apply() {
      throw new CheckpointError(reason);
    },
    async diff() {
      throw new CheckpointError(reason);
    },
    remove() {},
    close() {},
  };
}
