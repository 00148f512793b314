/**
 * One network namespace per session where dsh may not make namespaces itself (not root): a
 * holder process, `bwrap --unshare-user --unshare-net` running a shell that only waits, keeps
 * the namespace (only its loopback, which bwrap brings up), and each of the session's commands
 * starts through `nsenter --user=… --net=… --preserve-credentials` before its own bwrap, which
 * then shares that network (`--share-net`) and nests its own user namespace inside. A server
 * one command started is so reached by the session's next commands, and by nothing else.
 *
 * The namespaces are named by descriptors, never by the holder's pid: dsh opens the holder's
 * `/proc/<pid>/ns/user` and `ns/net` once, as soon as it says it holds them (checked against
 * the ids read then), and each command gets its own copies of them as inherited descriptors
 * (`/proc/self/fd/N`), so a pid another process took once the holder was gone names nothing.
 * They are closed when the holder ends.
 *
 * The holder is tied to dsh like every child (the supervisor chain, `holdUntilExit`; its
 * bwrap's `--die-with-parent`; and it waits on a pipe from dsh, which a dead dsh closes). The
 * holder is dsh's own and runs nothing of the model's, so it has no seccomp filter; every
 * command keeps its own.
 */
import { closeSync, fstatSync, openSync, readlinkSync } from "node:fs";
import type { Logger } from "../log.ts";
import type { NetworkHolder, NetworkHolders } from "../network/holder.ts";
import { locateBwrap } from "./bwrap.ts";
import { holdUntilExit, tieToDsh } from "./lifetime.ts";
import { findExecutable } from "./locate.ts";
import { signalGroup } from "./process-group.ts";

const SYSTEM_DIRS = ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"];

/** How long a new holder may take to say it holds its namespace. */
const READY_WITHIN_MS = 10_000;

/**
 * The holder maker of this process, or undefined (with one log line) where `nsenter` or bwrap
 * is missing, or a first holder and a sandbox nested in it cannot be made: commands then get a
 * namespace each, as bwrap makes it.
 */
export async function openHolders(logger: Logger): Promise<NetworkHolders | undefined> {
  const fallback = (why: string) => {
    logger.warn(
      `a session's sandboxed commands get a network namespace each (a server one starts is not reached by the next): ${why}`,
    );
    return undefined;
  };
  if (process.platform !== "linux") return undefined;
  // In the system's directories only (like the supervisor chain), not wherever PATH leads.
  const bwrap = locateBwrap(undefined);
  const nsenter = findExecutable(
    "nsenter",
    SYSTEM_DIRS.map((dir) => `${dir}/nsenter`),
    undefined,
  );
  if (bwrap === undefined) return fallback("bwrap is not found");
  if (nsenter === undefined) return fallback("nsenter (util-linux) is not found");
  const holders: NetworkHolders = {
    make: () =>
      makeHolder(bwrap, nsenter, logger).catch((error: unknown) => {
        const what = "a session's network holder cannot be made";
        logger.warn(`${what}: the command gets a namespace of its own`, { error });
        throw error;
      }),
  };
  let trial: NetworkHolder | undefined;
  try {
    trial = await makeHolder(bwrap, nsenter, logger);
    const entry = trial.enter(3);
    const nested = Bun.spawnSync(
      [...entry.argv, ...ownRootSandbox(bwrap, "--share-net", "exit 0")],
      { env: {}, stdio: ["ignore", "ignore", "pipe", ...entry.fds] },
    );
    entry.close();
    if (nested.exitCode !== 0) {
      const said = nested.stderr.toString().trim();
      return fallback(
        `a sandbox cannot start in a shared namespace: ${said || `exit ${nested.exitCode}`}`,
      );
    }
  } catch (error) {
    return fallback(error instanceof Error ? error.message : String(error));
  } finally {
    trial?.close();
  }
  return holders;
}

async function makeHolder(bwrap: string, nsenter: string, logger: Logger): Promise<NetworkHolder> {
  // Its pid as dsh sees it (no PID namespace here), then it waits until dsh closes the pipe.
  const argv = ownRootSandbox(bwrap, "--unshare-net", 'echo "$$"; exec cat');
  const tie = await tieToDsh(argv, { logger, mergeStderr: false });
  const proc = Bun.spawn(tie.argv, {
    env: {},
    stdio: ["pipe", "pipe", "pipe", ...tie.stdio],
    detached: true,
  });
  const untie = tie.started(proc);
  const release = holdUntilExit(proc.pid);
  let closed = false;
  let ended = false;
  let held: Held | undefined;
  const letGo = () => {
    if (held !== undefined) closeAll(held.fds);
    held = undefined;
  };
  const close = () => {
    if (closed) return;
    closed = true;
    letGo();
    // Once it ended (and was reaped) its pid may be another process's: no signal then.
    if (!ended) signalGroup(proc.pid, "SIGKILL");
    try {
      void proc.stdin.end();
    } catch {
      // Gone already.
    }
  };
  void proc.exited.then(() => {
    ended = true;
    letGo();
    signalGroup(proc.pid, "SIGKILL");
    release();
    untie();
    if (!closed) {
      logger.warn("a session's network holder ended; its next command gets a new namespace", {
        code: proc.exitCode,
        signal: proc.signalCode,
      });
    }
  });
  try {
    const said = await firstLine(proc, READY_WITHIN_MS);
    if (said === undefined) {
      close();
      const why = (await new Response(proc.stderr).text().catch(() => "")).trim();
      throw new Error(`the network holder did not start: ${why || "it said nothing"}`);
    }
    // Once it is seen to have ended, its pid may be another process's.
    if (ended) throw new Error("the network holder ended as it started");
    held = openNamespaces(said);
  } catch (error) {
    close();
    throw error;
  }
  // A holder never keeps dsh running: it ends with dsh, not the other way round.
  proc.unref();
  return {
    enter(firstFd) {
      if (held === undefined || closed || ended) {
        throw new Error("the session's network namespace ended before the command started");
      }
      const fds = copies(held.fds);
      return {
        argv: [
          nsenter,
          `--user=/proc/self/fd/${firstFd}`,
          `--net=/proc/self/fd/${firstFd + 1}`,
          "--preserve-credentials",
          "--",
        ],
        fds,
        close: () => closeAll(fds),
      };
    },
    alive: () => !closed && !ended && held !== undefined && stillHolds(held),
    close,
  };
}

/** dsh's descriptors of a holder's user and network namespaces, in that order, and their ids. */
interface Held {
  readonly pid: number;
  readonly fds: readonly [number, number];
  readonly ids: readonly string[];
}

/**
 * Whether the holder's process is still there (its namespaces are kept by dsh's descriptors
 * either way): its pid, once another process's, names other namespaces.
 */
function stillHolds(held: Held): boolean {
  try {
    return ["user", "net"].every(
      (kind, i) => readlinkSync(`/proc/${held.pid}/ns/${kind}`) === held.ids[i],
    );
  } catch {
    return false;
  }
}

/**
 * Opens the user and network namespaces of the holder `pid`, each checked against the id its
 * `/proc` link named before the open (a pid reused in between names another). Throws when they
 * differ, or the network is dsh's own.
 */
function openNamespaces(pid: number): Held {
  const opened: number[] = [];
  const ids: string[] = [];
  try {
    for (const kind of ["user", "net"]) {
      const path = `/proc/${pid}/ns/${kind}`;
      const id = readlinkSync(path);
      const fd = openSync(path, "r");
      opened.push(fd);
      ids.push(id);
      if (`${kind}:[${fstatSync(fd).ino}]` !== id || readlinkSync(path) !== id) {
        throw new Error(`the holder's ${kind} namespace changed as dsh opened it`);
      }
    }
    if (readlinkSync(`/proc/${pid}/ns/net`) === readlinkSync("/proc/self/ns/net")) {
      throw new Error("the holder is in dsh's own network namespace");
    }
  } catch (error) {
    closeAll(opened);
    throw error;
  }
  const [user = -1, net = -1] = opened;
  return { pid, fds: [user, net], ids };
}

/** New descriptors of what `fds` name (a namespace opened again through its descriptor). */
function copies(fds: readonly number[]): number[] {
  const made: number[] = [];
  try {
    for (const fd of fds) made.push(openSync(`/proc/self/fd/${fd}`, "r"));
  } catch (error) {
    closeAll(made);
    throw error;
  }
  return made;
}

function closeAll(fds: readonly number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
  }
}

/** `script` in bwrap with a user namespace of its own, `network`, the host's root read-only. */
function ownRootSandbox(bwrap: string, network: string, script: string): string[] {
  return [bwrap, "--unshare-user", network, "--die-with-parent", "--cap-drop", "ALL"].concat([
    "--ro-bind",
    "/",
    "/",
    "--",
    "/bin/sh",
    "-c",
    script,
  ]);
}

/** The holder's first line on stdout: its pid; undefined when it ended or said something else. */
async function firstLine(
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">,
  withinMs: number,
): Promise<number | undefined> {
  const reader = proc.stdout.getReader();
  const timer = setTimeout(() => void reader.cancel(), withinMs);
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  const pid = Number(text.trim());
  return text.includes("\n") && Number.isInteger(pid) && pid > 1 ? pid : undefined;
}
