/**
 * The compiled `dsh acp` as a child process behind real pipes, driven by the SDK's client app.
 * Every stdout line is parsed and schema-checked as it arrives; stderr is kept for messages.
 */
import {
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { createAcpValidator } from "./acp-schema.ts";
import { ensureBinary } from "./binary.ts";
import { TEST_SANDBOX } from "./sandbox-choice.ts";

export interface AcpProcessOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
  /** Extra environment over the test defaults. */
  readonly env?: Record<string, string>;
  readonly onPermission?: (params: acp.RequestPermissionRequest) => acp.RequestPermissionResponse;
  /** The config file's text (TOML); empty by default. */
  readonly configToml?: string;
  /**
   * Runs dsh as this uid (and gid), through setpriv (which needs root): its temp root is that
   * user's, and dsh's binary is copied into it (the clone may be where that user cannot go).
   */
  readonly asUser?: number;
}

export interface AcpProcess extends AsyncDisposable {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly agent: acp.ClientContext;
  /** A fresh project directory (realpath'd). */
  readonly cwd: string;
  readonly home: string;
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  /** Lines that are not JSON-RPC 2.0 or fail the schema. */
  readonly problems: readonly string[];
  readonly updates: acp.SessionNotification[];
  /** Resolves with the first update of `sessionId` (already received or still to come) that `match` accepts. */
  waitForUpdate(
    sessionId: string,
    match: (update: acp.SessionUpdate) => boolean,
  ): Promise<acp.SessionUpdate>;
  /** Closes stdin (EOF) and resolves with the exit code and the milliseconds it took to exit. */
  closeStdin(): Promise<{ code: number; ms: number }>;
  stderr(): Promise<string>;
}

/** Spawns `dist/dsh acp` with a temp home and config, pointed at `baseUrl`. */
export async function spawnAcp(options: AcpProcessOptions): Promise<AcpProcess> {
  const binary = await ensureBinary();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-acp-e2e-")));
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(join(root, "user"));
  writeFileSync(join(root, "config.toml"), options.configToml ?? "");
  const user = options.asUser;
  let argv = [binary, "acp"];
  if (user !== undefined) {
    const copy = join(root, "dsh");
    copyFileSync(binary, copy);
    for (const path of [root, cwd, join(root, "user"), join(root, "config.toml"), copy]) {
      chownSync(path, user, user);
    }
    const as = [`--reuid=${user}`, `--regid=${user}`, "--clear-groups", "--"];
    argv = ["setpriv", ...as, copy, "acp"];
  }
  const proc = Bun.spawn(argv, {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      DSH_SANDBOX: TEST_SANDBOX,
      HOME: join(root, "user"),
      DSH_HOME: home,
      DSH_CONFIG: join(root, "config.toml"),
      DSH_BASE_URL: options.baseUrl,
      DSH_API_KEY: options.apiKey ?? "test-key",
      ...options.env,
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const validator = createAcpValidator();
  const lines: string[] = [];
  const problems: string[] = [];
  const updates: acp.SessionNotification[] = [];
  const watchers = new Set<{
    sessionId: string;
    match: (update: acp.SessionUpdate) => boolean;
    resolve: (update: acp.SessionUpdate) => void;
  }>();
  const [tap, forClient] = proc.stdout.tee();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of tap) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        try {
          problems.push(...validator.outbound(JSON.parse(line)));
        } catch {
          problems.push(`stdout line is not JSON: ${line.slice(0, 200)}`);
        }
      }
    }
    if (buffer !== "") problems.push(`stdout ends without a newline: ${buffer.slice(0, 200)}`);
  })();

  let stdinOpen = true;
  const toAgent = new WritableStream<Uint8Array>({
    async write(chunk) {
      validator.inbound(JSON.parse(new TextDecoder().decode(chunk)));
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });
  const connection = acp
    .client({ name: "e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const watcher of watchers) {
        if (watcher.sessionId !== params.sessionId || !watcher.match(params.update)) continue;
        watchers.delete(watcher);
        watcher.resolve(params.update);
      }
    })
    .onRequest(
      acp.methods.client.session.requestPermission,
      ({ params }) =>
        options.onPermission?.(params) ?? { outcome: { outcome: "selected", optionId: "reject" } },
    )
    .connect(acp.ndJsonStream(toAgent, forClient));

  const closeStdin = async () => {
    const started = performance.now();
    if (stdinOpen) {
      stdinOpen = false;
      await proc.stdin.end();
    }
    const code = await proc.exited;
    return { code, ms: performance.now() - started };
  };

  return {
    proc,
    agent: connection.agent,
    cwd,
    home,
    lines,
    problems,
    updates,
    waitForUpdate(sessionId, match) {
      const seen = updates.find((n) => n.sessionId === sessionId && match(n.update));
      if (seen !== undefined) return Promise.resolve(seen.update);
      const { promise, resolve } = Promise.withResolvers<acp.SessionUpdate>();
      watchers.add({ sessionId, match, resolve });
      return promise;
    },
    closeStdin,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
      connection.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
