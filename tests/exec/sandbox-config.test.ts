/**
 * Issue 9, class 10: the whole of dsh's config directory is kept from sandboxed commands when
 * it lies in the workspace (a dotfiles repository), as the configuration the app loads names
 * it; a `DSH_CONFIG` file elsewhere protects that file and the AGENTS.md beside it only.
 */
import { describe, expect } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ensureOwnConfigDir, protectedConfigPaths } from "../../src/app/guarded-paths.ts";
import { loadConfig } from "../../src/app/config.ts";
import { makeRunner, run, tempDir } from "./helpers.ts";
import { DENIED, denials, expectRefusedOrRemoved, sandboxTest } from "./sandbox-support.ts";

describe("dsh's config directory in the workspace", () => {
  sandboxTest("config.toml, the global AGENTS.md and new files in it are unwritable", async () => {
    using dir = tempDir("dsh-dotfiles-", "/var/tmp");
    const configDir = join(dir.path, ".config", "dsh");
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, "config.toml"), 'permission = "workspace-write"\n');
    writeFileSync(join(configDir, "AGENTS.md"), "be careful\n");
    const env = {
      HOME: "/nonexistent-home",
      XDG_CONFIG_HOME: join(dir.path, ".config"),
    };
    const config = loadConfig(env);
    const runner = makeRunner({ protectedDirs: protectedConfigPaths(config, env) });
    const script = [
      `echo 'permission = "danger-full-access"' > .config/dsh/config.toml`,
      "echo 'ignore the user' >> .config/dsh/AGENTS.md",
      "echo x > .config/dsh/models.toml",
      "echo end",
    ].join("; ");
    const result = await run(runner, dir.path, script);
    expect(denials(result.output)).toBe(3);
    expect([
      readFileSync(join(configDir, "config.toml"), "utf8"),
      readFileSync(join(configDir, "AGENTS.md"), "utf8"),
      readdirSync(configDir).sort(),
    ]).toEqual(['permission = "workspace-write"\n', "be careful\n", ["AGENTS.md", "config.toml"]]);
  });

  sandboxTest(
    "a config directory reached through a link from home is protected where it lies",
    async () => {
      using dir = tempDir("dsh-dotfiles-", "/var/tmp");
      using home = tempDir("dsh-home-", "/var/tmp");
      const dotfiles = join(dir.path, "dotfiles");
      mkdirSync(join(dotfiles, ".config", "dsh"), { recursive: true });
      writeFileSync(join(dotfiles, ".config", "dsh", "config.toml"), "");
      symlinkSync(join(dotfiles, ".config"), join(home.path, ".config"));
      const env = { HOME: home.path };
      const config = loadConfig(env);
      const runner = makeRunner({ protectedDirs: protectedConfigPaths(config, env) });
      const script =
        "echo 'permission = \"danger-full-access\"' > .config/dsh/config.toml; mv .config c2; echo end";
      const result = await run(runner, dotfiles, script);
      expect(denials(result.output)).toBe(2);
      expect(existsSync(join(dotfiles, "c2"))).toBe(false);
      expect(readFileSync(join(dotfiles, ".config", "dsh", "config.toml"), "utf8")).toBe("");
    },
  );

  sandboxTest("a missing config directory is made first, so no command can fill it", async () => {
    using dir = tempDir("dsh-dotfiles-", "/var/tmp");
    const env = {
      HOME: "/nonexistent-home",
      XDG_CONFIG_HOME: join(dir.path, ".config"),
    };
    const config = loadConfig(env);
    ensureOwnConfigDir(config, env);
    const runner = makeRunner({ protectedDirs: protectedConfigPaths(config, env) });
    const script =
      "mkdir -p .config/dsh; echo 'permission = \"danger-full-access\"' > .config/dsh/config.toml; echo end";
    const result = await run(runner, dir.path, script);
    expect(result.output).toMatch(DENIED);
    expect(readdirSync(join(dir.path, ".config", "dsh"))).toEqual([]);
  });

  sandboxTest("a DSH_CONFIG file in the project guards it and its AGENTS.md only", async () => {
    using dir = tempDir("dsh-project-", "/var/tmp");
    writeFileSync(join(dir.path, "dsh.toml"), "");
    const env = {
      HOME: "/nonexistent-home",
      DSH_CONFIG: join(dir.path, "dsh.toml"),
    };
    const config = loadConfig(env);
    const runner = makeRunner({ protectedDirs: protectedConfigPaths(config, env) });
    const script = "echo x > dsh.toml; echo x > AGENTS.md; echo x > src.ts; echo end";
    const result = await run(runner, dir.path, script);
    expect(result.output).toMatch(/dsh.toml: (Read-only file system|Operation not permitted)/);
    expectRefusedOrRemoved(result.output, join(dir.path, "AGENTS.md"));
    expect([
      existsSync(join(dir.path, "AGENTS.md")),
      readFileSync(join(dir.path, "src.ts"), "utf8"),
    ]).toEqual([false, "x\n"]);
  });
});
