/**
 * The stdio transport for MCP servers, over `Bun.spawn`: the server runs in its own process
 * group (so stopping it stops whatever it started), tied to dsh's lifetime like a command
 * (`exec/lifetime.ts`: a dsh that dies, SIGKILL included, takes the group along), with
 * exactly the environment it is given, and its stderr goes to dsh's log line by line, bounded.
 * The SDK's own stdio transport spawns through `child_process` without a group of its own, so
 * dsh frames messages with the SDK's `ReadBuffer` over its own process handling.
 */
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { holdUntilExit, tieToDsh } from "../exec/lifetime.ts";
import { signalGroup, waitGroupGone } from "../exec/process-group.ts";
import { errorCode } from "../error-code.ts";
import type { Logger } from "../log.ts";
import { resolveServerCommand } from "./server-command.ts";

/** How long a server has to exit after SIGTERM before its group gets SIGKILL. */
const STOP_GRACE_MS = 1000;
/**
 * How long the rest of the group has, once the server is gone, before SIGKILL. Short: what the
 * server started got the same SIGTERM, and a member that already died may linger as a zombie
 * until the system reaps it, which the group check cannot tell from a live process.
 */
const GROUP_GRACE_MS = 200;
/** Longest stderr line logged (the rest of the line is dropped). */
const MAX_STDERR_LINE = 2000;
/** Stderr lines logged per server; later ones are counted, not logged. */
const MAX_STDERR_LINES = 500;

export interface StdioTransportOptions {
  readonly server: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly logger: Logger;
}

/** A transport that spawns the server on `start()` and stops its whole group on `close()`. */
export interface StdioTransport extends Transport {
  /** The pid of the server's group leader (its supervisor, or the server) once started. */
  readonly pid: number | undefined;
  /** How the server ended, with its last stderr line, once it exited on its own. */
  exitReason(): string | undefined;
}

export function createStdioTransport(options: StdioTransportOptions): StdioTransport {
  const { logger, server } = options;
  const buffer = new ReadBuffer();
  let proc: Bun.Subprocess<"pipe", "pipe", "pipe"> | undefined;
  let closed = false;
  let stopping: Promise<void> | undefined;
  let lastStderr = "";
  let exit: string | undefined;
  let release = () => {};
  let untie = () => {};

  const transport: StdioTransport = {
    get pid() {
      return proc?.pid;
    },
    exitReason: () => exit,
    async start() {
      if (proc !== undefined) throw new Error("the transport is already started");
      const command = resolveServerCommand(options.command, options.cwd, options.env.PATH);
      if (!command.ok) throw new Error(command.reason);
      const tie = await tieToDsh([command.path, ...options.args], { logger, mergeStderr: false });
      try {
        proc = Bun.spawn(tie.argv, {
          cwd: options.cwd,
          env: { ...options.env },
          stdio: ["pipe", "pipe", "pipe", ...tie.stdio],
          // A group of its own; on Windows its job is that (a detached process gets a console).
          detached: process.platform !== "win32",
          windowsHide: true,
        });
      } catch (error) {
        throw new Error(spawnFailure(options.command, error));
      }
      const child = proc;
      untie = tie.started(child);
      release = holdUntilExit(child.pid);
      void readMessages(child.stdout);
      const stderrDone = logStderr(child.stderr, (line) => {
        lastStderr = line;
        logger.info("mcp server stderr", { server, line });
      });
      void Promise.all([child.exited, stderrDone]).then(([code]) => {
        if (!closed) {
          const how =
            child.signalCode === null
              ? `exited with code ${code}`
              : `was killed by ${child.signalCode}`;
          exit = lastStderr === "" ? how : `${how}: ${lastStderr}`;
          logger.warn("mcp server exited", { server, code, signal: child.signalCode });
        }
        finish();
      });
    },
    async send(message: JSONRPCMessage) {
      if (proc === undefined || closed) throw new Error("the server is not running");
      proc.stdin.write(serializeMessage(message));
      await proc.stdin.flush();
    },
    close() {
      stopping ??= (async () => {
        const child = proc;
        finish();
        if (child === undefined) return;
        try {
          await child.stdin.end();
        } catch {
          // The server is gone already: its stdin pipe is closed.
        }
        await stopGroup(child);
        release();
        untie();
      })();
      return stopping;
    },
  };

  function finish(): void {
    if (closed) return;
    closed = true;
    buffer.clear();
    transport.onclose?.();
  }

  async function readMessages(stdout: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stdout) {
        try {
          buffer.append(Buffer.from(chunk));
        } catch (error) {
          // One message over the SDK's 10 MB bound: the connection cannot continue.
          transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void transport.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server printing to stdout) is reported, not fatal.
            transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
            continue;
          }
          if (message === null) break;
          transport.onmessage?.(message);
        }
      }
    } catch (error) {
      if (!closed) transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  return transport;
}

/** SIGTERM to the group; SIGKILL to what is left once the server exits or its grace ends. */
async function stopGroup(child: Bun.Subprocess): Promise<void> {
  if (!signalGroup(child.pid, "SIGTERM")) return;
  const timer = Promise.withResolvers<void>();
  const handle = setTimeout(timer.resolve, STOP_GRACE_MS);
  await Promise.race([child.exited, timer.promise]);
  clearTimeout(handle);
  if (!(await waitGroupGone(child.pid, GROUP_GRACE_MS))) signalGroup(child.pid, "SIGKILL");
  await child.exited;
}

/** Splits stderr into lines and hands each (cut to a bound) to `log`, up to a line budget. */
async function logStderr(
  stderr: ReadableStream<Uint8Array>,
  log: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  let logged = 0;
  let dropped = 0;
  const emit = (line: string) => {
    if (line.trim() === "") return;
    if (logged >= MAX_STDERR_LINES) {
      dropped++;
      return;
    }
    logged++;
    log(line.length > MAX_STDERR_LINE ? `${line.slice(0, MAX_STDERR_LINE)}…` : line);
  };
  try {
    for await (const chunk of stderr) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) emit(line.replace(/\r$/, ""));
      // A line with no end in sight is logged in pieces rather than held without bound.
      if (pending.length > MAX_STDERR_LINE) {
        emit(pending);
        pending = "";
      }
    }
  } catch {
    // The pipe broke with the process; what was read is logged below.
  }
  emit(pending + decoder.decode());
  if (dropped > 0) log(`(${dropped} more stderr lines not logged)`);
}

function spawnFailure(command: string, error: unknown): string {
  const code = errorCode(error);
  if (code === "ENOENT") return `command not found: ${command}`;
  if (code === "EACCES") return `command not executable: ${command}`;
  return `cannot start ${command}: ${error instanceof Error ? error.message : String(error)}`;
}
