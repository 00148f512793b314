/**
 * Ties every command's lifetime to dsh's, whatever the moment dsh ends, SIGKILL included.
 *
 * The spawned process is a chain of small exec steps before the command itself:
 *
 * 1. `setpriv --pdeathsig ALRM` sets PR_SET_PDEATHSIG, so the kernel sends SIGALRM to this
 *    process the moment dsh dies, before anything of the command exists.
 * 2. `sh -c '[ "$PPID" = <dsh> ] || exit'`: a dsh that died between the fork and step 1 left
 *    no signal behind, but did leave this process reparented; it then exits without starting
 *    anything. Otherwise it joins the command's cgroups, if it has any, before anything of the
 *    command exists, and, for a shell command, sends stderr to stdout, so the two arrive in
 *    their true order (an MCP server's stderr stays apart: its stdout is the protocol).
 *    Where the command's rlimits may be set before its sandbox (`SuperviseOptions.rlimits`),
 *    it sets them here too, soft and hard, sparing the command an exec of `prlimit`.
 * 3. `timeout -s KILL 0` (no time limit of its own) stays the command's parent and leader of
 *    its process group. SIGALRM is how its own timer expires: it SIGKILLs the whole group,
 *    itself included, at once. A grace (SIGTERM first) would not do: timeout exits as soon as
 *    its child does, and would leave a group member that ignores SIGTERM running. Other
 *    signals it passes on to the group (dsh's own graceful SIGTERM), and it passes the
 *    command's exit status, or its death signal, on unchanged. (A command that sends SIGALRM
 *    to its own group ends itself the same way.)
 * 4. In timeout's child, `setpriv --pdeathsig KILL` and `sh -c '[ "$PPID" = <timeout> ]'`
 *    again: a SIGALRM that reaches timeout while it forks makes it exit without signalling
 *    anyone (it does not know its child yet), and this child then dies with it, or, when
 *    timeout was gone before step 4 took hold, starts nothing.
 *
 * The sandbox (bwrap and the namespace it builds) stays inside that group until its own
 * `--die-with-parent` holds, so the group kill reaches it at every stage of its set-up.
 * A command outside the sandbox that leaves the group (`setsid`, a daemon) is not reached.
 */
import type { CommandLimits } from "./limits.ts";
import { findExecutable } from "./locate.ts";

/** The executables of the chain, by absolute path. */
export interface Supervisor {
  readonly setpriv: string;
  readonly shell: string;
  readonly timeout: string;
}

const SYSTEM_DIRS = ["/usr/bin", "/bin", "/usr/local/bin"];

/**
 * Finds setpriv (util-linux), a POSIX shell and timeout (coreutils) in the system
 * directories and runs the chain once over `true`; undefined when one is missing or the
 * chain fails (the platform has no PR_SET_PDEATHSIG, a minimal image lacks them, a setpriv
 * too old for `--pdeathsig`), and commands are then spawned directly.
 */
export function locateSupervisor(platform: NodeJS.Platform): Supervisor | undefined {
  const found = findSupervisor(platform);
  if (found === undefined) return undefined;
  // Absolute paths throughout, so the check needs no environment (and gets none of dsh's).
  const check = Bun.spawnSync(superviseArgv(found, process.pid, [found.shell, "-c", "exit 0"]), {
    env: {},
    stdio: ["ignore", "ignore", "ignore"],
  });
  return check.exitCode === 0 ? found : undefined;
}

function findSupervisor(platform: NodeJS.Platform): Supervisor | undefined {
  if (platform !== "linux") return undefined;
  const find = (name: string) =>
    findExecutable(
      name,
      SYSTEM_DIRS.map((dir) => `${dir}/${name}`),
      undefined,
    );
  const setpriv = find("setpriv");
  const shell = find("sh");
  const timeout = find("timeout");
  if (setpriv === undefined || shell === undefined || timeout === undefined) return undefined;
  return { setpriv, shell, timeout };
}

// $0: dsh's pid; then the number of cgroups and the files to join them through (0: the shell
// itself, its one thread, before it execs the rest of the chain); then the rlimits, RLIMIT_DATA
// in KiB and RLIMIT_NPROC (`-` `-`: none; NPROC is `-u` to bash, `-p` to dash); then timeout,
// setpriv and sh for the steps after this one; then the command.
const chainScript = (mergeStderr: boolean) =>
  [
    '[ "$PPID" = "$0" ] || exit 125',
    "n=$1",
    "shift",
    'while [ "$n" -gt 0 ]; do echo 0 > "$1" || exit 125; n=$((n - 1)); shift; done',
    'if [ "$1" != - ]; then ulimit -d "$1" && { ulimit -u "$2" 2>/dev/null || ulimit -p "$2"; } || exit 125; fi',
    "shift 2",
    "t=$1 p=$2 s=$3",
    "shift 3",
    `exec "$t" -s KILL 0 "$p" --pdeathsig KILL -- "$s" -c '${'[ "$PPID" = "$0" ] || exit 125; exec "$@"'}' "$$" "$@"${mergeStderr ? " 2>&1" : ""}`,
  ].join("; ");

const MERGED_CHAIN = chainScript(true);
const SEPARATE_CHAIN = chainScript(false);

export interface SuperviseOptions {
  /** The files the process joins its cgroups through, first (`CommandCgroup.procsFiles`). */
  readonly cgroupProcs?: readonly string[];
  /** Whether stderr goes into stdout (the default, for commands) or stays apart. */
  readonly mergeStderr?: boolean;
  /**
   * RLIMIT_NPROC and RLIMIT_DATA for the process and all it runs, set by the chain's shell
   * (soft and hard) before anything of `argv` exists. Only where the process bound need not
   * count within a user namespace made later (`command-plan.ts`).
   */
  readonly rlimits?: CommandLimits;
}

/** `argv` run under the chain, for a child of the process `parentPid`. */
export function superviseArgv(
  supervisor: Supervisor,
  parentPid: number,
  argv: readonly string[],
  options: SuperviseOptions = {},
): string[] {
  const cgroupProcs = options.cgroupProcs ?? [];
  const { rlimits } = options;
  return [
    supervisor.setpriv,
    "--pdeathsig",
    "ALRM",
    "--",
    supervisor.shell,
    "-c",
    options.mergeStderr === false ? SEPARATE_CHAIN : MERGED_CHAIN,
    String(parentPid),
    String(cgroupProcs.length),
    ...cgroupProcs,
    ...(rlimits === undefined
      ? ["-", "-"]
      : [String(Math.floor(rlimits.memoryBytes / 1024)), String(rlimits.processes)]),
    supervisor.timeout,
    supervisor.setpriv,
    supervisor.shell,
    ...argv,
  ];
}
