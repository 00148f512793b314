/**
 * The macOS backend around `seatbelt.ts`: for each command, the workspace's protections found
 * by the same walk and rules as on Linux (`protectWorkspace()`), the credential stores in each
 * spelling, a temp directory of the command's own (its `TMPDIR`, and the mark of its sandbox),
 * held by the watchdog from before the command starts. When the command ends, every process
 * still in its sandbox is ended (`sandbox-sweep.ts`), then the workspace is checked as on Linux;
 * what dsh could not undo makes it refuse later commands there.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidInputError } from "../errors.ts";
import { foldsCase, isWithin, realpathOr } from "../paths.ts";
import type { Backend, BackendOptions, WrapInput, Wrapped } from "./backend.ts";
import {
  checkWorkspaceAfter,
  refuseOverlappingRoots,
  refuseUnsafe,
  unavailableBackend,
  walksByWorkspace,
} from "./backend-parts.ts";
import { darwinCalls } from "./darwin-calls.ts";
import { credentialSpellings } from "./guards.ts";
import { sharedWatchdog } from "./lifetime.ts";
import { loadDirCalls } from "./load-dir-calls.ts";
import { sweepSandbox } from "./sandbox-sweep.ts";
import { seatbeltArgs } from "./seatbelt.ts";
import { seatbeltPlanFor } from "./seatbelt-plan.ts";
import type { SeatbeltPlanContext } from "./seatbelt-plan.ts";
import { probeSeatbelt } from "./seatbelt-probe.ts";
import { refuseRedirectedGit } from "./workspace-guards.ts";

/** Probes macOS's sandbox with dsh's real profile. Never throws. */
export async function openSeatbelt(options: BackendOptions): Promise<Backend> {
  let calls: ReturnType<typeof darwinCalls>;
  try {
    calls = darwinCalls(await import("bun:ffi"));
  } catch (error) {
    return unavailableBackend({
      backend: "seatbelt",
      ok: false,
      reason: `dsh cannot reach libSystem through bun:ffi to find a command's processes (${String(error)})`,
      fix: "choose the danger-full-access preset",
    });
  }
  const scope = options.credentials ?? { home: options.home };
  const walks = walksByWorkspace(await loadDirCalls(), options.walkLimits);

  const context: SeatbeltPlanContext = {
    credentials: scope,
    stateDir: options.stateDir,
    protectedDirs: options.protectedDirs,
    git: options.git ?? { home: options.home },
    walk: (workspace) => walks.of(workspace),
    foldsCase: (path) => calls.foldsCase(path) || foldsCase(path),
    seen: new Map(),
  };
  const prepare = (input: WrapInput, tempDir: string) => seatbeltPlanFor(input, tempDir, context);

  const status = await probeSeatbelt({
    plan: (workspace, tempDir) =>
      prepare({ mode: "workspace-write", workspace, cwd: workspace }, tempDir).plan,
    calls,
    timeoutMs: options.probeTimeoutMs,
    logger: options.logger,
  });
  if (!status.ok) return unavailableBackend(status);
  const watchdog = sharedWatchdog(options.logger);
  // What commands created and dsh could not undo: later commands there are refused.
  const unsafe = new Set<string>();
  // Workspaces where a command's processes outlived it: later commands there are refused.
  const outlived = new Set<string>();

  const hidden = (path: string) => {
    const stores = [...credentialSpellings(scope), ...(context.seen?.values() ?? [])];
    return stores.some((mask) => isWithin(mask.path, path))
      ? "it lies in a credential store the sandbox hides"
      : undefined;
  };
  const wrap = (input: WrapInput, argv: readonly string[]): Wrapped => {
    refuseOverlappingRoots(
      input.workspace,
      input.extraWorkspaces ?? [],
      options.protectedDirs ?? [],
    );
    for (const root of [input.workspace, ...(input.extraWorkspaces ?? [])]) {
      refuseUnsafe(unsafe, root);
      refuseOutlived(outlived, root);
      refuseRedirectedGit(root);
    }
    const tempDir = commandTempDir(input.workspace);
    watchdog.holdSandbox(tempDir);
    let prepared: ReturnType<typeof prepare>;
    try {
      prepared = prepare(input, tempDir);
    } catch (error) {
      watchdog.releaseSandbox(tempDir);
      rmSync(tempDir, { recursive: true, force: true });
      throw error;
    }
    const { plan, protection, extraProtections } = prepared;
    let closed = false;
    const close = (): string[] => {
      if (closed) return [];
      closed = true;
      const notes: string[] = [];
      // Nothing of the command may run on while the workspace is checked.
      const swept = sweepSandbox(tempDir, { calls });
      if (swept.left > 0) {
        outlived.add(input.workspace);
        options.logger.error(
          `${swept.left} process(es) of a sandboxed command could not be ended; dsh runs no more sandboxed commands in ${input.workspace} until it is started again`,
          { workspace: input.workspace },
        );
        notes.push(
          "[dsh could not end every process of the command; it refuses further sandboxed " +
            "commands here until it is started again]",
        );
      } else {
        watchdog.releaseSandbox(tempDir);
        rmSync(tempDir, { recursive: true, force: true });
      }
      if (protection !== undefined) {
        notes.push(
          ...checkWorkspaceAfter(
            input.workspace,
            protection,
            options.logger,
            walks.of(input.workspace),
            unsafe,
          ),
        );
      }
      for (const [i, extra] of extraProtections.entries()) {
        const root = input.extraWorkspaces?.[i];
        if (root === undefined) continue;
        notes.push(...checkWorkspaceAfter(root, extra, options.logger, walks.of(root), unsafe));
      }
      return notes;
    };
    return {
      argv: seatbeltArgs(plan, argv),
      fds: [],
      // Stores are unreadable here (EPERM), not empty as under bwrap: npm would stop at its
      // ~/.npmrc, so it reads none.
      env: () => ({ TMPDIR: tempDir, npm_config_userconfig: "/dev/null" }),
      close,
    };
  };
  return {
    status,
    view: (workspace, extraWorkspaces = []) => ({
      hidden,
      wrap: (command, argv) => wrap({ ...command, workspace, extraWorkspaces }, argv),
    }),
    close() {},
  };
}

/**
 * A new temp directory for one command, outside its workspace: were it inside, every process
 * that may write the workspace could write it too, and the sweep could not tell them apart.
 */
function commandTempDir(workspace: string): string {
  const parent = [tmpdir(), "/private/var/tmp", "/private/tmp"]
    .map((dir) => realpathOr(dir))
    .find((dir) => !isWithin(workspace, dir));
  if (parent === undefined) {
    throw new InvalidInputError(
      `${workspace} holds every temp directory dsh can give a command; open a project directory instead, or choose danger-full-access`,
      { workspace },
    );
  }
  return realpathSync(mkdtempSync(join(parent, "dsh-cmd-")));
}

function refuseOutlived(outlived: ReadonlySet<string>, workspace: string): void {
  if (!outlived.has(workspace)) return;
  throw new InvalidInputError(
    `processes of an earlier sandboxed command in ${workspace} could not be ended; dsh runs no ` +
      "more sandboxed commands there: end them (they run as you), then start dsh again",
    { workspace },
  );
}
