/**
 * Ties every command's lifetime to dsh's, whatever the moment dsh ends, SIGKILL included.
 *
 * The spawned process is a chain of three small exec steps before the command itself:
 *
 * 1. `setpriv --pdeathsig TERM` sets PR_SET_PDEATHSIG, so the kernel sends SIGTERM to this
 *    process the moment dsh dies, before anything of the command exists.
 * 2. `sh -c '[ "$PPID" = <dsh> ] || exit'`: a dsh that died between the fork and step 1 left
 *    no signal behind, but did leave this process reparented; it then exits without starting
 *    anything.
 * 3. `timeout -k <grace> 0` (no time limit of its own) stays the command's parent and leader of
 *    its process group: on that SIGTERM it signals the whole group, and SIGKILLs it after the
 *    grace period. It passes the command's exit status, or its death signal, on unchanged.
 *
 * The sandbox (bwrap and the namespace it builds) stays inside that group until its own
 * `--die-with-parent` holds, so the group kill reaches it at every stage of its set-up.
 * A command outside the sandbox that leaves the group (`setsid`, a daemon) is not reached.
 */
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
 * directories; undefined when one is missing (the platform has no PR_SET_PDEATHSIG, or a
 * minimal image lacks them) and commands are spawned directly.
 */
export function locateSupervisor(platform: NodeJS.Platform): Supervisor | undefined {
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

/** `argv` run under the chain, for a child of the process `parentPid`. */
export function superviseArgv(
  supervisor: Supervisor,
  parentPid: number,
  graceMs: number,
  argv: readonly string[],
): string[] {
  const grace = `${Math.max(1, Math.ceil(graceMs / 1000))}s`;
  return [
    supervisor.setpriv,
    "--pdeathsig",
    "TERM",
    "--",
    supervisor.shell,
    "-c",
    '[ "$PPID" = "$0" ] || exit 125; exec "$@"',
    String(parentPid),
    supervisor.timeout,
    "-k",
    grace,
    "0",
    ...argv,
  ];
}
