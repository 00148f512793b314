/**
 * How one command will run, decided once before anything of it starts: the argv (the shell,
 * its rlimits, the network bridge and the sandbox around it, inside out), the descriptors and
 * variables the sandbox adds, the cgroup that bounds it, and what ends its sandbox afterwards.
 * The runner then only ties the argv to dsh's lifetime, spawns it and reads its result.
 *
 * Every refusal comes before anything is opened (a workspace that is `/` or holds the home, a
 * cwd the sandbox hides), and whatever the plan opened is closed again when a later step fails.
 */
import { resolve } from "node:path";
import { InvalidInputError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { CommandNetwork, NetworkService } from "../network/service.ts";
import { isWithin, realpathOr } from "../paths.ts";
import type { SandboxBackend } from "../settings/table.ts";
import type { Backend, Wrapped } from "./backend.ts";
import type { CgroupMaker, CommandCgroup } from "./cgroup.ts";
import { SandboxUnavailableError } from "./errors.ts";
import { limitArgv, ulimitArgv } from "./limits.ts";
import type { CommandLimits } from "./limits.ts";
import type { CommandRequest } from "./types.ts";
import { realDirectory } from "./workspace.ts";

export interface CommandPlan {
  readonly backend: SandboxBackend;
  /** What to spawn, before the tie to dsh's lifetime. */
  readonly argv: readonly string[];
  /** Parent descriptors the command gets as fd 3, 4, ... */
  readonly fds: readonly number[];
  /** The pid of the sandbox's init once the command has exited, as bwrap told it. */
  readonly sandboxInit?: () => number | undefined;
  /** Variables the sandbox adds to the scrubbed environment, given that one. */
  readonly env?: (scrubbed: Readonly<Record<string, string>>) => Record<string, string>;
  readonly network?: CommandNetwork;
  readonly cgroup?: CommandCgroup;
  /** The bounds the command runs under, and whether its rlimits hold them. */
  readonly bounds: CommandLimits;
  readonly rlimited: boolean;
  /** The rlimits the supervisor chain sets, before the sandbox, where `argv` does not. */
  readonly chainLimits?: CommandLimits;
  /**
   * Ends the sandbox once the command has exited: notes for the model. `settled` false says a
   * process of the command may still run (the check after it then fails closed). Never throws.
   */
  release(settled?: boolean): string[];
}

/** What the runner holds that plans are made from: found once, shared by its commands. */
export interface PlanContext {
  readonly shell: string;
  /** Whether the supervisor chain runs the command (it merges stderr itself then). */
  readonly supervised: boolean;
  readonly home: string;
  readonly configured: CommandLimits;
  /** The bounds within the hard limits dsh inherited (read once). */
  readonly bounds: () => CommandLimits;
  readonly prlimit: string | undefined;
  readonly backend: () => Promise<Backend>;
  readonly network: NetworkService | undefined;
  readonly cgroups: CgroupMaker;
  readonly logger: Logger;
  /** Said once per runner: the number of processes is not bounded. */
  readonly warnUnbounded: () => void;
}

/** The shell running `command`, its stderr joined to stdout, before any sandbox. */
export function shellArgv(context: PlanContext, command: string): string[] {
  // stderr goes into stdout inside the child, so the two arrive in their true order: the
  // supervisor chain does it, else a wrapper shell. `--` keeps a command that starts with a
  // dash from being read as a shell option.
  const { shell } = context;
  return context.supervised
    ? [shell, "-c", "--", command]
    : [shell, "-c", 'exec "$0" -c -- "$1" 2>&1', shell, command];
}

/** The plan of a command outside any sandbox. */
export function unsandboxedPlan(context: PlanContext, command: string): CommandPlan {
  return {
    backend: "none",
    argv: shellArgv(context, command),
    fds: [],
    bounds: context.configured,
    rlimited: false,
    release: () => [],
  };
}

/** The plan of a command in the sandbox of `request.sandbox`; cwd and workspace are realpaths. */
export async function sandboxedPlan(
  context: PlanContext,
  request: CommandRequest & { readonly sandbox: "read-only" | "workspace-write" },
  cwd: string,
  workspace: string,
): Promise<CommandPlan> {
  const opened = await context.backend();
  if (!opened.status.ok) throw new SandboxUnavailableError(opened.status);
  const extras = (request.extraWorkspaces ?? []).map((dir) =>
    realDirectory(dir, "added directory"),
  );
  if (request.sandbox === "workspace-write") {
    for (const root of [workspace, ...extras]) refuseBroadWorkspace(root, context.home);
  }
  const view = opened.view(workspace, extras);
  const hidden = view.hidden(cwd);
  if (hidden !== undefined) {
    throw new InvalidInputError(`cwd ${cwd} is outside the sandbox's view: ${hidden}`, { cwd });
  }
  const backend = opened.status.backend === "seatbelt" ? "seatbelt" : "bwrap";
  const bounds = context.bounds();
  const network = await openNetwork(context, request, backend);
  const attach = network?.attach;
  const chainLimits =
    backend === "bwrap" && attach?.type !== "bridge" && rlimitsBeforeSandbox(context)
      ? bounds
      : undefined;
  // Inside bwrap, prlimit sets the rlimits, so RLIMIT_NPROC counts in the command's own user
  // namespace; on macOS the shell's ulimit does, which counts all of the user's processes.
  const rlimited = backend === "seatbelt" || context.prlimit !== undefined || !!chainLimits;
  const limited =
    backend === "seatbelt"
      ? ulimitArgv(context.shell, bounds.processes, request.command)
      : context.prlimit !== undefined && chainLimits === undefined
        ? limitArgv(context.prlimit, bounds, shellArgv(context, request.command))
        : shellArgv(context, request.command);
  // The bridge runs outside the command's rlimits: its runtime reserves memory and threads.
  const inner = attach?.type === "bridge" ? [...attach.bridge, "--", ...limited] : limited;
  let wrapped: Wrapped;
  try {
    wrapped = view.wrap({ mode: request.sandbox, cwd, network: attach }, inner);
  } catch (error) {
    network?.close();
    throw error;
  }
  const cgroup =
    backend === "bwrap" && context.supervised ? context.cgroups.create(bounds) : undefined;
  if (process.getuid?.() === 0 && !cgroup?.controllers.includes("pids")) context.warnUnbounded();
  return {
    backend,
    argv: wrapped.argv,
    fds: wrapped.fds,
    ...(wrapped.sandboxInit === undefined ? {} : { sandboxInit: wrapped.sandboxInit }),
    ...(wrapped.env === undefined ? {} : { env: wrapped.env }),
    ...(network === undefined ? {} : { network }),
    ...(cgroup === undefined ? {} : { cgroup }),
    bounds,
    rlimited,
    ...(chainLimits === undefined ? {} : { chainLimits }),
    release: (settled) => [...wrapped.close(settled), ...(network?.close() ?? [])],
  };
}

/**
 * Whether the supervisor chain may set the command's rlimits before its sandbox exists, which
 * spares it an exec of prlimit inside: as root, whom the kernel never holds to RLIMIT_NPROC
 * (the pids cgroup bounds its processes), so nothing counts outside the command's own user
 * namespace; RLIMIT_DATA is each process's own. Anyone else's RLIMIT_NPROC must be set inside
 * that namespace, or it would count every process of the user, bwrap's own fork included.
 */
function rlimitsBeforeSandbox(context: PlanContext): boolean {
  return context.supervised && process.getuid?.() === 0;
}

/** The command's network; without it the command still runs, with none (as bwrap gives it). */
function openNetwork(
  context: PlanContext,
  request: CommandRequest,
  backend: "bwrap" | "seatbelt",
): Promise<CommandNetwork | undefined> {
  const opening = context.network?.open(request.network, backend, request.networkScope);
  return (opening ?? Promise.resolve(undefined)).catch((error: unknown) => {
    context.logger.warn("the command runs without network: its proxy could not be opened", {
      error,
    });
    return undefined;
  });
}

/**
 * A writable `/`, home directory or ancestor of it would leave nothing worth sandboxing. The
 * workspace is a realpath, so home is compared both as given and resolved through symlinks.
 */
function refuseBroadWorkspace(workspace: string, home: string): void {
  const homes = [resolve(home), realpathOr(resolve(home))];
  if (workspace === "/" || homes.some((path) => isWithin(workspace, path))) {
    throw new InvalidInputError(
      `refusing to make ${workspace} writable in the sandbox: it is / or contains your home ` +
        "directory; open a project directory instead, or choose danger-full-access",
      { workspace },
    );
  }
}
