/**
 * An isolated dsh installation for one hostile test: a project directory, a state dir, a HOME
 * and an empty config file under one temp root, removed on dispose. Several processes (a dsh
 * killed, then a new one loading its session) can share it.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface HostileProject extends Disposable {
  readonly root: string;
  /** The project directory, where dsh runs (realpath'd). */
  readonly cwd: string;
  /** `DSH_HOME`. */
  readonly home: string;
  /** `DSH_CONFIG`. */
  readonly config: string;
  /** The environment of a dsh pointed at `baseUrl`. */
  env(baseUrl: string): Record<string, string>;
  /** Where the log of `sessionId` lives. */
  logPath(sessionId: string): string;
}

/** Creates the directories; `configToml` is written to the config file. */
export function createProject(configToml = ""): HostileProject {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-hostile-")));
  const cwd = join(root, "project");
  const home = join(root, "home");
  const config = join(root, "config.toml");
  mkdirSync(cwd);
  mkdirSync(join(root, "user"));
  writeFileSync(config, configToml);
  return {
    root,
    cwd,
    home,
    config,
    env: (baseUrl) => ({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(root, "user"),
      DSH_HOME: home,
      DSH_CONFIG: config,
      DSH_BASE_URL: baseUrl,
      DSH_API_KEY: "test-key",
    }),
    logPath: (sessionId) => join(home, "sessions", `${sessionId}.jsonl`),
    [Symbol.dispose]() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
