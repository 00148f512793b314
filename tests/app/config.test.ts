import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConfigError,
  DEFAULT_BASE_URL,
  loadConfig,
  loadConfigAsync,
} from "../../src/app/config.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dsh-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function withFile(toml: string): string {
  const path = join(dir, `config-${files++}.toml`);
  writeFileSync(path, toml);
  return path;
}

describe("loadConfig", () => {
  test("defaults: DeepSeek, workspace-write, auto sandbox, XDG paths under HOME", () => {
    const config = loadConfig({ HOME: "/home/u" });
    expect(config).toMatchObject({
      home: "/home/u/.local/share/dsh",
      configPath: "/home/u/.config/dsh/config.toml",
      baseUrl: DEFAULT_BASE_URL,
      apiKey: undefined,
      model: undefined,
      permission: "workspace-write",
      sandbox: "auto",
      log: "stderr",
      maxTurnRequests: 100,
    });
  });

  test("a config file that sets nothing (empty, or comments alone) is the defaults", () => {
    const none = loadConfig({ HOME: dir });
    for (const text of ["", '# dsh\n\n# model = "x"\n']) {
      const config = loadConfig({ HOME: dir, DSH_CONFIG: withFile(text) });
      expect({ ...config, configPath: none.configPath, configDir: none.configDir }).toEqual(none);
    }
  });

  test("XDG variables move the state and config dirs", () => {
    const config = loadConfig({ HOME: "/home/u", XDG_DATA_HOME: "/data", XDG_CONFIG_HOME: "/cfg" });
    expect([config.home, config.configPath]).toEqual(["/data/dsh", "/cfg/dsh/config.toml"]);
  });

  test("flags beat the environment, which beats the file", () => {
    const DSH_CONFIG = withFile(
      'model = "from-file"\npermission = "read-only"\nbase_url = "http://file.test"\n',
    );
    const fileOnly = loadConfig({ HOME: dir, DSH_CONFIG });
    expect([fileOnly.model, fileOnly.permission, fileOnly.baseUrl]).toEqual([
      "from-file",
      "read-only",
      "http://file.test",
    ]);
    const env = {
      HOME: dir,
      DSH_CONFIG,
      DSH_MODEL: "from-env",
      DSH_PERMISSION: "danger-full-access",
    };
    const fromEnv = loadConfig(env);
    expect([fromEnv.model, fromEnv.permission]).toEqual(["from-env", "danger-full-access"]);
    const fromFlags = loadConfig(env, { model: "from-flag", permission: "workspace-write" });
    expect([fromFlags.model, fromFlags.permission]).toEqual(["from-flag", "workspace-write"]);
  });

  test("DSH_API_KEY wins over DEEPSEEK_API_KEY, which is the fallback", () => {
    expect(loadConfig({ HOME: dir, DEEPSEEK_API_KEY: "b" }).apiKey).toBe("b");
    expect(loadConfig({ HOME: dir, DSH_API_KEY: "a", DEEPSEEK_API_KEY: "b" }).apiKey).toBe("a");
    expect(loadConfig({ HOME: dir, DSH_API_KEY: " ", DEEPSEEK_API_KEY: "b" }).apiKey).toBe("b");
  });

  test("reads models and env tables", () => {
    const DSH_CONFIG = withFile(
      '[[models]]\nid = "local"\nname = "Local"\nbase_url = "http://127.0.0.1:1/v1"\n\n[env]\ninclude = ["A_*"]\nallow_secret = ["NPM_TOKEN"]\n',
    );
    const config = loadConfig({ HOME: dir, DSH_CONFIG });
    expect(config.models.map((m) => m.id)).toEqual(["local"]);
    expect(config.env).toEqual({ include: ["A_*"], allow_secret: ["NPM_TOKEN"] });
  });

  test("bad input is a ConfigError naming the file and the key", () => {
    const cases: [Record<string, string>, string][] = [
      [{ DSH_CONFIG: withFile("modle = 'typo'\n") }, "modle"],
      [{ DSH_CONFIG: withFile("permission = 'yolo'\n") }, "permission"],
      [{ DSH_CONFIG: withFile("this is not toml =\n") }, "not valid TOML"],
      [{ DSH_CONFIG: join(dir, "missing.toml") }, "config file not found"],
      [{ DSH_PERMISSION: "everything" }, "unknown permission preset"],
      [{ DSH_SANDBOX: "docker" }, "unknown DSH_SANDBOX"],
    ];
    for (const [env, fragment] of cases) {
      const load = () => loadConfig({ HOME: dir, ...env });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(fragment);
    }
  });

  test("compact_at: 0.8 by default, any share above 0 up to 1, anything else an error", () => {
    expect(loadConfig({ HOME: dir }).compactAt).toBe(0.8);
    expect(loadConfig({ HOME: dir, DSH_CONFIG: withFile("compact_at = 0.5\n") }).compactAt).toBe(
      0.5,
    );
    for (const bad of ["0", "1.5", "-0.2", '"half"']) {
      const load = () => loadConfig({ HOME: dir, DSH_CONFIG: withFile(`compact_at = ${bad}\n`) });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow("compact_at");
    }
  });

  test("max_subagents: 4 by default, 1 to 32, anything else an error", () => {
    expect(loadConfig({ HOME: dir }).maxSubagents).toBe(4);
    expect(
      loadConfig({ HOME: dir, DSH_CONFIG: withFile("max_subagents = 2\n") }).maxSubagents,
    ).toBe(2);
    for (const bad of ["0", "33", "1.5", '"4"']) {
      const load = () =>
        loadConfig({ HOME: dir, DSH_CONFIG: withFile(`max_subagents = ${bad}\n`) });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow("max_subagents");
    }
  });

  test("[[models]] prices, vision and context_window reach the config", () => {
    const DSH_CONFIG = withFile(
      '[[models]]\nid = "m"\ncontext_window = 4096\nvision = true\nprices = { cache_hit = 0.1, cache_miss = 1, output = 2 }\n',
    );
    expect(loadConfig({ HOME: dir, DSH_CONFIG }).models).toEqual([
      {
        id: "m",
        context_window: 4096,
        vision: true,
        prices: { cache_hit: 0.1, cache_miss: 1, output: 2 },
      },
    ]);
    const typo = withFile(
      '[[models]]\nid = "m"\nprices = { cache_hit = 0.1, cache_mis = 1, output = 2 }\n',
    );
    expect(() => loadConfig({ HOME: dir, DSH_CONFIG: typo })).toThrow(ConfigError);
  });
});

describe("the endpoint's base URL", () => {
  test("a DSH_BASE_URL or base_url that is no http(s) URL is a config error naming where it came from", () => {
    const file = withFile("");
    for (const bad of ["garbage", "ftp://example.com", "http://", "localhost:8080"]) {
      expect(() => loadConfig({ DSH_CONFIG: file, HOME: dir, DSH_BASE_URL: bad })).toThrow(
        new ConfigError(
          `DSH_BASE_URL "${bad}" is not an http(s) URL; set it to the endpoint's base, such as ${DEFAULT_BASE_URL}`,
        ),
      );
    }
    const withBadFile = withFile('base_url = "file:///etc/passwd"\n');
    expect(() => loadConfig({ DSH_CONFIG: withBadFile, HOME: dir })).toThrow(
      `${withBadFile}: base_url "file:///etc/passwd" is not an http(s) URL`,
    );
    expect(
      loadConfig({ DSH_CONFIG: file, HOME: dir, DSH_BASE_URL: "http://127.0.0.1:11434/v1" })
        .baseUrl,
    ).toBe("http://127.0.0.1:11434/v1");
  });
});

describe("loadConfigAsync (dsh acp's, read without node:fs)", () => {
  /** What a load gives: the config, or the error's message. */
  const outcome = (load: () => unknown) => {
    try {
      return { config: load() };
    } catch (error) {
      return { error: error instanceof ConfigError ? error.message : String(error) };
    }
  };
  const asyncOutcome = async (load: () => Promise<unknown>) => {
    try {
      return { config: await load() };
    } catch (error) {
      return { error: error instanceof ConfigError ? error.message : String(error) };
    }
  };

  test("gives what loadConfig gives, for every kind of file and every failure", async () => {
    const folder = join(dir, "a-folder.toml");
    mkdirSync(folder);
    const cases: Record<string, string>[] = [
      {},
      { DSH_CONFIG: withFile("") },
      { DSH_CONFIG: withFile("model = 'deepseek-v4-pro'\neffort = 'high'\n") },
      { DSH_CONFIG: withFile("modle = 'typo'\n") },
      { DSH_CONFIG: withFile("this is not toml =\n") },
      { DSH_CONFIG: join(dir, "missing.toml") },
      { DSH_CONFIG: join(dir, "missing-dir", "config.toml") },
      { DSH_CONFIG: folder },
      { XDG_CONFIG_HOME: join(dir, "no-such-config-home") },
    ];
    for (const env of cases) {
      const sync = outcome(() => loadConfig({ HOME: dir, ...env }));
      expect(await asyncOutcome(() => loadConfigAsync({ HOME: dir, ...env }))).toEqual(sync);
    }
  });
});
