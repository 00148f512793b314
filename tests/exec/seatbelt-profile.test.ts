/**
 * The macOS profile as dsh builds it for a real workspace on disk: the same walk and rules as
 * the Linux backend decide what it keeps, every spelling of every credential store is denied,
 * the command writes nothing outside the workspace but its own temp directory, and the base
 * allows what tools need and nothing that leads to secrets. Runs anywhere: only the profile
 * text is checked here; the macOS suite runs it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../../src/errors.ts";
import { credentialSpellings } from "../../src/exec/guards.ts";
import { loadDirCalls } from "../../src/exec/load-dir-calls.ts";
import { TRUST_SERVICE } from "../../src/exec/seatbelt-base.ts";
import { seatbeltPlanFor } from "../../src/exec/seatbelt-plan.ts";
import type { SeatbeltPlanContext } from "../../src/exec/seatbelt-plan.ts";
import {
  gitNamePattern,
  namesToKeep,
  seatbeltArgs,
  seatbeltProfile,
} from "../../src/exec/seatbelt.ts";
import type { SeatbeltPlan } from "../../src/exec/seatbelt.ts";
import { git, initRepo } from "./git-support.ts";
import { tempDir } from "./helpers.ts";

const calls = await loadDirCalls("darwin");

function context(home: string, foldsCase = true): SeatbeltPlanContext {
  return {
    credentials: { home },
    stateDir: join(home, "state"),
    git: { home },
    walk: () => ({ calls }),
    foldsCase: () => foldsCase,
  };
}

/** Each `-D` parameter's value, by the rule it appears in: `deny file-write*`, `keep`, ... */
function rules(plan: SeatbeltPlan) {
  const { profile, params } = seatbeltProfile(plan);
  const value = new Map(params.map((pair) => pair.split(/=(.*)/s) as [string, string]));
  const paths = (line: string | undefined) =>
    [...(line ?? "").matchAll(/\(param "([A-Z_0-9]+)"\)/g)].map((m) => value.get(m[1] ?? ""));
  const line = (start: string) => profile.split("\n").find((l) => l.startsWith(start));
  return {
    profile,
    writable: paths(line("(allow file-write* ")),
    denied: paths(line("(deny file-write* ")),
    kept: paths(line("(deny file-write-unlink ")),
    hidden: paths(line("(deny file-read* file-write* ")),
  };
}

const workspaceWrite = (workspace: string) => ({
  mode: "workspace-write" as const,
  workspace,
  cwd: workspace,
});

describe("what the workspace keeps", () => {
  test("the walk's guards: nested repositories, gitlinks, hooks paths, includes, modules, worktrees", () => {
    using dir = tempDir();
    using home = tempDir();
    const ws = dir.path;
    initRepo(ws);
    git(ws, ["config", "core.hooksPath", ".husky"]);
    git(ws, ["config", "include.path", "../shared.cfg"]);
    writeFileSync(join(ws, "shared.cfg"), "");
    initRepo(join(ws, "vendor/lib"));
    // A submodule: a gitdir: file, its git directory under .git/modules.
    mkdirSync(join(ws, "sub"));
    initRepo(join(ws, ".git/modules/sub-src"));
    writeFileSync(join(ws, "sub/.git"), `gitdir: ${join(ws, ".git/modules/sub-src/.git")}\n`);
    const { plan, protection } = seatbeltPlanFor(
      workspaceWrite(ws),
      "/private/var/folders/x/T/dsh-cmd-1",
      context(home.path),
    );
    const { denied, kept } = rules(plan);
    for (const path of [
      ".git/hooks",
      ".git/config",
      ".git/modules",
      ".git/worktrees",
      ".git/commondir",
      ".git/rebase-merge",
      ".husky",
      "shared.cfg",
      "vendor/lib/.git",
      "sub/.git",
      ".git/modules/sub-src/.git/config",
      ".git/modules/sub-src/.git/hooks",
      ".vscode",
      ".npmrc",
      ".dsh",
    ]) {
      expect({ path, denied: denied.includes(join(ws, path)) }).toEqual({ path, denied: true });
    }
    for (const path of [".git", "vendor", "vendor/lib", "sub"]) {
      expect({ path, kept: kept.includes(join(ws, path)) }).toEqual({ path, kept: true });
    }
    expect(denied).not.toContain(join(ws, ".git"));
    // The walk never enters a .git: the submodule's git directory is found through its gitdir file.
    expect(protection?.gitEntries).toEqual([
      join(ws, ".git"),
      join(ws, "sub/.git"),
      join(ws, "vendor/lib/.git"),
    ]);
  });

  test("a protected path reached through a symlink in the workspace refuses the command", () => {
    using dir = tempDir();
    using home = tempDir();
    initRepo(dir.path);
    mkdirSync(join(dir.path, "hooks-elsewhere"));
    git(dir.path, ["config", "core.hooksPath", "linked"]);
    symlinkSync("hooks-elsewhere", join(dir.path, "linked"));
    expect(() =>
      seatbeltPlanFor(workspaceWrite(dir.path), "/private/tmp/t", context(home.path)),
    ).toThrow(InvalidInputError);
  });

  test("no .git name can be created, in any case where the volume folds it", () => {
    using dir = tempDir();
    using home = tempDir();
    const folded = seatbeltPlanFor(workspaceWrite(dir.path), "/t", context(home.path, true));
    const exact = seatbeltPlanFor(workspaceWrite(dir.path), "/t", context(home.path, false));
    const rule = (caseInsensitive: boolean) =>
      `(deny file-write-create (require-all (subpath (param "WORKSPACE")) (regex ${gitNamePattern(caseInsensitive)})))`;
    expect(seatbeltProfile(folded.plan).profile).toContain(rule(true));
    expect(seatbeltProfile(exact.plan).profile).toContain(rule(false));
    const regex = (caseInsensitive: boolean) =>
      new RegExp(gitNamePattern(caseInsensitive).slice(2, -1).replaceAll("\\\\", "\\"));
    const names = ["/w/.git", "/w/a/.GIT", "/w/.Git", "/w/.gitignore", "/w/x.git", "/w/.github"];
    expect(names.filter((name) => regex(true).test(name))).toEqual([
      "/w/.git",
      "/w/a/.GIT",
      "/w/.Git",
    ]);
    expect(names.filter((name) => regex(false).test(name))).toEqual(["/w/.git"]);
  });
});

describe("where a command may write", () => {
  const plan: SeatbeltPlan = {
    mode: "workspace-write",
    workspace: "/private/tmp/project",
    tempDir: "/private/var/folders/x/T/dsh-cmd-abc",
    guards: [{ type: "readonly", path: "/private/tmp/project/.git/hooks" }],
    caseInsensitive: true,
    secrets: [],
    network: false,
  };

  test("its own temp directory and the workspace, never the shared /tmp or /var/tmp", () => {
    const { writable, profile } = rules(plan);
    expect(writable).toEqual(["/private/var/folders/x/T/dsh-cmd-abc", "/private/tmp/project"]);
    expect(profile).not.toContain("/private");
    expect(profile).toContain(
      '(deny file-write-flags (subpath (param "TEMP")) (subpath (param "WORKSPACE")))',
    );
    // Rules match the name a file is opened by: no hard link may give a host file another.
    expect(profile.split("\n")).toContain("(deny file-link)");
  });

  test("read-only: its temp directory only, so a project under /tmp keeps its hooks", () => {
    const args = seatbeltArgs({ ...plan, mode: "read-only" }, ["/bin/sh"]);
    const profile = args[2] ?? "";
    expect(rules({ ...plan, mode: "read-only" }).writable).toEqual([plan.tempDir]);
    expect(profile).not.toContain("WORKSPACE");
    expect(args).toEqual([
      "/usr/bin/sandbox-exec",
      "-p",
      profile,
      "-D",
      `TEMP=${plan.tempDir}`,
      "--",
      "/bin/sh",
    ]);
  });
});

describe("the base every command gets", () => {
  const plan: SeatbeltPlan = {
    mode: "read-only",
    workspace: "/Users/u/p",
    tempDir: "/private/var/folders/x/T/dsh-cmd-1",
    guards: [],
    caseInsensitive: true,
    secrets: [],
    network: false,
  };
  const lines = (extra: Partial<SeatbeltPlan> = {}) =>
    seatbeltProfile({ ...plan, ...extra }).profile.split("\n");

  test("sysctls only by name: no other process's arguments or environment (ps -E)", () => {
    expect(lines()).not.toContain("(allow sysctl-read)");
    const profile = lines().join("\n");
    expect(profile).not.toMatch(/procargs|kern\.proc\.all|"kern\.proc\."\)/);
    for (const name of ['"hw.ncpu"', '"hw.memsize"', '"kern.proc.pid."', '"machdep.cpu."']) {
      expect(profile).toContain(name);
    }
  });

  test("no keychain service; the certificate service only for a command with the proxy", () => {
    const plain = lines().join("\n");
    const proxied = lines({ proxyPort: 50123 }).join("\n");
    for (const profile of [plain, proxied]) {
      expect(profile).not.toMatch(/SecurityServer|securityd|keychain|mach-lookup\)/);
    }
    expect(plain).not.toContain(TRUST_SERVICE);
    expect(proxied).toContain(`(global-name "${TRUST_SERVICE}")`);
  });

  test("os.cpus() and preferences work: mach-host and user-preference-read are allowed", () => {
    expect(lines()).toContain("(allow mach-host*)");
    expect(lines()).toContain("(allow user-preference-read)");
    expect(lines()).toContain("(allow signal (target same-sandbox))");
  });
});

describe("credential stores", () => {
  test("each is denied as spelled and where a symlink leads, existing or not", () => {
    using home = tempDir();
    mkdirSync(join(home.path, "dotfiles/aws"), { recursive: true });
    mkdirSync(join(home.path, "dotfiles/config"), { recursive: true });
    symlinkSync(join(home.path, "dotfiles/aws"), join(home.path, ".aws"));
    symlinkSync(join(home.path, "dotfiles/config"), join(home.path, ".config"));
    const spelled = credentialSpellings({ home: home.path }).map((mask) => mask.path);
    for (const path of [
      ".aws",
      "dotfiles/aws",
      ".config/gh",
      "dotfiles/config/gh",
      "dotfiles/config/zed/settings.json",
      ".ssh",
    ]) {
      expect({ path, denied: spelled.includes(join(home.path, path)) }).toEqual({
        path,
        denied: true,
      });
    }
    using dir = tempDir();
    const { plan } = seatbeltPlanFor(
      { mode: "read-only", workspace: dir.path, cwd: dir.path },
      "/t",
      context(home.path),
    );
    expect(rules(plan).hidden).toEqual([...spelled, join(home.path, "state")]);
  });

  test("the names to keep are the directories strictly between a writable root and each path", () => {
    expect(
      namesToKeep(
        ["/w", "/private/tmp"],
        ["/w/a/b/c.json", "/w/x", "/w", "/elsewhere/y", "/w/a/d", "/private/tmp/t/u"],
      ).sort(),
    ).toEqual(["/private/tmp/t", "/w/a", "/w/a/b"]);
  });
});

describe("a store seen once", () => {
  test("stays denied where it was after the link that led to it is pointed elsewhere", () => {
    using home = tempDir();
    mkdirSync(join(home.path, "dotfiles/gh"), { recursive: true });
    mkdirSync(join(home.path, "decoy"));
    symlinkSync(join(home.path, "dotfiles"), join(home.path, "cfg"));
    const seen = new Map();
    const ctx = {
      ...context(home.path),
      credentials: { home: home.path, configHome: join(home.path, "cfg") },
      seen,
    };
    using dir = tempDir();
    const input = { mode: "read-only" as const, workspace: dir.path, cwd: dir.path };
    const first = rules(seatbeltPlanFor(input, "/t", ctx).plan).hidden;
    expect(first).toContain(join(home.path, "dotfiles/gh"));
    rmSync(join(home.path, "cfg"));
    symlinkSync(join(home.path, "decoy"), join(home.path, "cfg"));
    const later = rules(seatbeltPlanFor(input, "/t", ctx).plan).hidden;
    expect([
      later.includes(join(home.path, "dotfiles/gh")),
      later.includes(join(home.path, "decoy/gh")),
    ]).toEqual([true, true]);
  });
});
