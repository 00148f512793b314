/**
 * A real composition for tests: the production `compose()` with a temp state dir, an empty
 * config file and the given model server. Disposing it removes the temp dirs.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Composition, compose } from "../../src/app/compose.ts";
import { loadConfig } from "../../src/app/config.ts";
import type { ApprovalAnswerer } from "../../src/approval/types.ts";
import type { InteractionProvider } from "../../src/interaction/types.ts";
import { silentLogger } from "../../src/log.ts";
import { TEST_SANDBOX } from "./sandbox-choice.ts";

export interface TestAgent extends AsyncDisposable {
  readonly composition: Composition;
  /** A fresh project directory (realpath'd) to use as a session cwd. */
  readonly cwd: string;
  /** The state dir (`DSH_HOME`). */
  readonly home: string;
  readonly env: Record<string, string>;
}

export interface TestAgentOptions {
  readonly baseUrl: string;
  readonly answerers?: readonly ApprovalAnswerer[];
  /** Who can answer structured questions; none by default (the question tool is not offered). */
  readonly questioners?: readonly InteractionProvider[];
  /** Extra environment (e.g. `DSH_PERMISSION`), over the test defaults. */
  readonly env?: Record<string, string>;
  /** Extra config file text (TOML). */
  readonly configToml?: string;
}

export function createTestAgent(options: TestAgentOptions): TestAgent {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-agent-")));
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(cwd);
  const configPath = join(root, "config.toml");
  writeFileSync(configPath, options.configToml ?? "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "user"),
    DSH_HOME: home,
    DSH_CONFIG: configPath,
    DSH_BASE_URL: options.baseUrl,
    DSH_API_KEY: "test-key",
    DSH_SANDBOX: TEST_SANDBOX,
    ...options.env,
  };
  mkdirSync(env.HOME ?? join(root, "user"), { recursive: true });
  const composition = compose({
    config: loadConfig(env),
    env,
    logger: silentLogger,
    answerers: options.answerers ?? [],
    questioners: options.questioners ?? [],
  });
  return {
    composition,
    cwd,
    home,
    env,
    async [Symbol.asyncDispose]() {
      await composition[Symbol.asyncDispose]();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
