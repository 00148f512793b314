/**
 * One network namespace per session where dsh may not make namespaces itself (not root): a
 * holder process, `bwrap --unshare-user --unshare-net` running a shell that only waits, keeps
 * the namespace (only its loopback, which bwrap brings up), and each of the session's commands
 * starts through `nsenter -t <holder> -U -n --preserve-credentials` before its own bwrap, which
 * then shares that network (`--share-net`) and nests its own user namespace inside. A server
 * one command started is so reached by the session's next commands, and by nothing else.
 *
 * The holder is tied to dsh like every child (the supervisor chain, `holdUntilExit`; its
 * bwrap's `--die-with-parent`; and it waits on a pipe from dsh, which a dead dsh closes). The
 * holder is dsh's own and runs nothing of the model's, so it has no seccomp filter; every
 * command keeps its own.
 */
import { readlinkSync } from "node:fs";
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
    const nested = Bun.spawnSync(
      [...trial.enter, ...ownRootSandbox(bwrap, "--share-net", "exit 0")],
      { env: {}, stdio: ["ignore", "ignore", "pipe"] },
    );
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
  const close = () => {
    if (closed) return;
    closed = true;
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
  let pid: number;
  let net: string;
  let user: string;
  try {
    const said = await firstLine(proc, READY_WITHIN_MS);
    if (said === undefined) {
      close();
      const why = (await new Response(proc.stderr).text().catch(() => "")).trim();
      throw new Error(`the network holder did not start: ${why || "it said nothing"}`);
    }
    pid = said;
    net = readlinkSync(`/proc/${pid}/ns/net`);
    user = readlinkSync(`/proc/${pid}/ns/user`);
    if (net === readlinkSync("/proc/self/ns/net")) {
      throw new Error("the holder is in dsh's own network namespace");
    }
  } catch (error) {
    close();
    throw error;
  }
  // A holder never keeps dsh running: it ends with dsh, not the other way round.
  proc.unref();
  const same = () => {
    try {
      return (
        readlinkSync(`/proc/${pid}/ns/net`) === net && readlinkSync(`/proc/${pid}/ns/user`) === user
      );
    } catch {
      return false;
    }
  };
  return {
    enter: [nsenter, "-t", String(pid), "-U", "-n", "--preserve-credentials", "--"],
    alive: () => !closed && !ended && same(),
    close,
  };
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
