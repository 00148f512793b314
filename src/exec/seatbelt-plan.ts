/**
 * One command's Seatbelt plan, found on disk just before it runs: the workspace's protections
 * from the same walk and rules as on Linux (`protectWorkspace()`: git's control files and every
 * nested repository's, what they include, hooks paths, `.git/modules`, `.git/worktrees`,
 * sequencer state, dsh's own files, project configuration), with missing paths denied by rule
 * rather than made; every spelling of every credential store; and the command's temp directory.
 */
import type { CredentialScope } from "../permission/credentials.ts";
import type { GitUserConfig } from "../permission/git-repository.ts";
import { isWithin, realpathOr } from "../paths.ts";
import type { WrapInput } from "./backend.ts";
import type { WalkOptions } from "./git-entries.ts";
import { credentialSpellings, storePins } from "./guards.ts";
import type { Mask } from "./guards.ts";
import { namesToKeep } from "./seatbelt.ts";
import type { SeatbeltPlan } from "./seatbelt.ts";
import { protectWorkspace } from "./workspace-guards.ts";
import type { WorkspaceProtection } from "./workspace-guards.ts";

export interface SeatbeltPlanContext {
  readonly credentials: CredentialScope;
  readonly stateDir: string;
  readonly protectedDirs?: readonly string[];
  readonly git: GitUserConfig;
  /** How a workspace is walked for `.git` entries. */
  readonly walk: (workspace: string) => WalkOptions;
  /** Whether the volume holding a path folds case. */
  readonly foldsCase: (path: string) => boolean;
  /**
   * Every spelling of a store seen by an earlier command of this process, kept: a store stays
   * hidden where it was even when the name that led to it (a symlinked `$XDG_CONFIG_HOME`) was
   * pointed elsewhere. Each plan adds its own.
   */
  readonly seen?: Map<string, Mask>;
}

/** Rules cover paths that do not exist: a missing protected path is denied, never made. */
const RULES_COVER_MISSING = () => false;

/**
 * The plan for `input` (realpaths) with `tempDir` as the command's own, and the protections
 * its end is checked against (none when read-only). Throws what `protectWorkspace` throws.
 */
export function seatbeltPlanFor(
  input: WrapInput,
  tempDir: string,
  context: SeatbeltPlanContext,
): {
  plan: SeatbeltPlan;
  protection: WorkspaceProtection | undefined;
  /** The added directories' protections, in their order (none when read-only). */
  extraProtections: readonly WorkspaceProtection[];
} {
  const writable = input.mode === "workspace-write";
  const stateDir = realpathOr(context.stateDir);
  const stores = credentialSpellings(context.credentials);
  if (context.seen !== undefined) {
    for (const mask of stores) context.seen.set(mask.path, mask);
    stores.splice(0, stores.length, ...context.seen.values());
  }
  const secrets: Mask[] = isWithin(stateDir, input.workspace)
    ? stores
    : [...stores, { type: "dir", path: stateDir }];
  const protect = (root: string) =>
    protectWorkspace(root, {
      stateDir: context.stateDir,
      protectedDirs: context.protectedDirs,
      pinned: storePins(secrets, root),
      placeholder: RULES_COVER_MISSING,
      git: context.git,
      walk: context.walk(root),
    });
  const extras = input.extraWorkspaces ?? [];
  const protection = writable ? protect(input.workspace) : undefined;
  const extraProtections = writable ? extras.map(protect) : [];
  const plan: SeatbeltPlan = {
    mode: input.mode,
    workspace: input.workspace,
    extraWorkspaces: extras,
    tempDir,
    guards: [...(protection?.guards ?? []), ...extraProtections.flatMap((extra) => extra.guards)],
    caseInsensitive:
      writable && [input.workspace, ...extras].some((root) => context.foldsCase(root)),
    secrets,
    keepNames: writable
      ? namesToKeep(
          [input.workspace, ...extras],
          secrets.map((mask) => mask.path),
        )
      : [],
    network: false,
    proxyPort: input.network?.type === "port" ? input.network.port : undefined,
  };
  return { plan, protection, extraProtections };
}
