/**
 * End-to-end rig for the compiled binary: the binary, a scripted model server and a temp root,
 * with one isolated project (cwd, state dir, HOME, empty config) per test.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "./binary.ts";
import { type ModelServer, startModelServer } from "./model-server.ts";
import { type OutputWatcher, watchOutput } from "./process-output.ts";
import { TEST_SANDBOX } from "./sandbox-choice.ts";

export interface CliProject {
  /** The project directory, where dsh runs. */
  readonly cwd: string;
  /** Holds the project, the state dir, HOME and the config file. */
  readonly base: string;
  /** `DSH_HOME`. */
  readonly home: string;
  readonly env: Record<string, string>;
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** The whole environment instead of the project's. */
  readonly env?: Record<string, string>;
  /** Standard input; none (EOF at once) when absent. */
  readonly stdin?: string;
}

export interface CliRig extends AsyncDisposable {
  readonly binary: string;
  readonly server: ModelServer;
  /** A fresh project; `configToml` is written to its config file. */
  project(name: string, configToml?: string): CliProject;
  /** Starts `dsh ARGS` in the project; `done` resolves once it exits. */
  start(
    args: readonly string[],
    project: CliProject,
    options?: RunOptions,
  ): { pid: number; done: Promise<CliRun> };
  /** Runs `dsh ARGS` in the project and resolves once it exits. */
  run(args: readonly string[], project: CliProject, options?: RunOptions): Promise<CliRun>;
  /** Starts `dsh chat` in the project with piped stdin; `say` types one line. */
  chat(project: CliProject): ChatProcess;
}

export interface ChatProcess {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly stdout: OutputWatcher;
  readonly stderr: OutputWatcher;
  say(line: string): Promise<void>;
}

/** `build`: another build of dsh to run (a release archive's), else `dist/dsh`. */
export async function startCliRig(prefix: string, build?: string): Promise<CliRig> {
  const binary = build ?? (await ensureBinary());
  const server = await startModelServer();
  const root = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-`)));
  const rig: CliRig = {
    binary,
    server,
    project(name, configToml = "") {
      const base = join(root, name);
      const cwd = join(base, "project");
      mkdirSync(cwd, { recursive: true });
      mkdirSync(join(base, "user"), { recursive: true });
      writeFileSync(join(base, "config.toml"), configToml);
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        DSH_SANDBOX: TEST_SANDBOX,
        HOME: join(base, "user"),
        DSH_HOME: join(base, "home"),
        DSH_CONFIG: join(base, "config.toml"),
        DSH_BASE_URL: server.url,
        DSH_API_KEY: "test-key",
      };
      return { cwd, base, home: join(base, "home"), env };
    },
    start(args, project, options = {}) {
      const proc = Bun.spawn([binary, ...args], {
        cwd: project.cwd,
        env: options.env ?? project.env,
        stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
        stdout: "pipe",
        stderr: "pipe",
      });
      const done = Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]).then(([stdout, stderr, code]) => ({ code, stdout, stderr }));
      return { pid: proc.pid, done };
    },
    run: (args, project, options) => rig.start(args, project, options).done,
    chat(project) {
      const proc = Bun.spawn([binary, "chat"], {
        cwd: project.cwd,
        env: project.env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      return {
        proc,
        stdout: watchOutput(proc.stdout),
        stderr: watchOutput(proc.stderr),
        async say(line) {
          proc.stdin.write(`${line}\n`);
          await proc.stdin.flush();
        },
      };
    },
    async [Symbol.asyncDispose]() {
      await server[Symbol.asyncDispose]();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return rig;
}
