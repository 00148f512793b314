/**
 * Credential stores moved to another name, through the compiled binary: a session opened in
 * `~/.config` (or with `$XDG_CONFIG_HOME` inside the project) renames a store, its parent or
 * an ancestor, or points the name that led to it elsewhere, and a later command and the file
 * tools look for it under the new name. The key never reaches the model: the renames fail in
 * the sandbox, and the file tools know the stores by device and inode.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type CliProject, type CliRig, startCliRig } from "../support/cli.ts";
import { type Respond, type ScriptedTurn, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-moved-stores");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

/** Writes each store with a secret of its own; returns the secrets. */
function plant(root: string, stores: readonly string[]): string[] {
  return stores.map((store, i) => {
    const secret = `sk-moved-store-${i}-0123456789`;
    mkdirSync(dirname(join(root, store)), { recursive: true });
    writeFileSync(join(root, store), `{"key":"${secret}"}\n`);
    return secret;
  });
}

/** A turn that does `first` on the host once its request arrives, then answers `turn`. */
function after(first: () => void, turn: ScriptedTurn): ScriptedTurn {
  return {
    respond: (request): Respond => {
      first();
      return typeof turn.respond === "function" ? turn.respond(request) : turn.respond;
    },
  };
}

const bash = (id: string, command: string) => ({ id, name: "bash", args: { command } });
const read = (id: string, path: string) => ({ id, name: "read_file", args: { path } });

/** Runs `dsh exec` in `cwd` through `turns`; returns every request body the model saw. */
async function exec(
  project: CliProject,
  cwd: string,
  turns: readonly ScriptedTurn[],
  env: Record<string, string> = {},
): Promise<string> {
  const before = rig.server.requests.length;
  rig.server.script(...turns, textTurn("done"));
  const run = await rig.start(
    ["exec", "tidy up"],
    { ...project, cwd },
    {
      env: { ...project.env, ...env },
    },
  ).done;
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "done\n" });
  return JSON.stringify(rig.server.requests.slice(before).map((r) => r.body));
}

function expectNoneLeaked(seen: string, secrets: readonly string[]): void {
  expect(secrets.filter((secret) => seen.includes(secret))).toEqual([]);
}

sandboxSerialTest(
  "a session in ~/.config cannot move a store's parent to read it under the new name",
  async () => {
    const project = rig.project("parent");
    const config = join(project.env.HOME ?? "", ".config");
    const stores = ["zed/settings.json", "git/credentials", "rclone/rclone.conf"];
    const secrets = plant(config, stores);
    const seen = await exec(project, config, [
      toolTurn([bash("mv", "mv zed zed.moved; mv git git.moved; mv rclone rclone.moved; ls")]),
      toolTurn([
        bash("cat", "cat zed.moved/settings.json git.moved/credentials rclone.moved/rclone.conf"),
        read("zed", "zed.moved/settings.json"),
        read("git", "git.moved/credentials"),
      ]),
    ]);
    expectNoneLeaked(seen, secrets);
    // A pinned mount point under bwrap, a rule under Seatbelt.
    expect(seen).toMatch(/zed\.moved'?: (Device or resource busy|Operation not permitted)/);
    for (const [i, store] of stores.entries()) {
      expect(readFileSync(join(config, store), "utf8")).toContain(secrets[i] ?? "");
    }
  },
);

sandboxSerialTest(
  "a store, its parent and an ancestor in $XDG_CONFIG_HOME inside the project stay where they are",
  async () => {
    const project = rig.project("xdg");
    const xdg = join(project.cwd, "xdg");
    const stores = ["gh/hosts.yml", "zed/settings.json", "Code/User/settings.json"];
    const secrets = plant(xdg, stores);
    const seen = await exec(
      project,
      project.cwd,
      [
        toolTurn([
          bash("store", "mv xdg/gh xdg/gh.moved; mv xdg/zed/settings.json xdg/zed/s.json"),
          bash("ancestor", "mv xdg/Code xdg/Code.moved; mv xdg xdg.moved; ls -R"),
        ]),
        toolTurn([
          bash("cat", "cat xdg.moved/*/* xdg.moved/*/*/* xdg/*/* xdg/*/*/* 2>&1"),
          read("gh", "xdg.moved/gh.moved/hosts.yml"),
          read("code", "xdg.moved/Code.moved/User/settings.json"),
        ]),
      ],
      { XDG_CONFIG_HOME: xdg },
    );
    expectNoneLeaked(seen, secrets);
    for (const [i, store] of stores.entries()) {
      expect(readFileSync(join(xdg, store), "utf8")).toContain(secrets[i] ?? "");
    }
  },
);

sandboxSerialTest(
  "a symlinked $XDG_CONFIG_HOME pointed elsewhere leaves its stores hidden where they are",
  async () => {
    const project = rig.project("xdg-link");
    const real = join(project.cwd, "dotfiles");
    const secrets = plant(real, ["zed/settings.json"]);
    symlinkSync("dotfiles", join(project.cwd, "cfg"));
    const seen = await exec(
      project,
      project.cwd,
      [
        toolTurn([bash("swap", "rm cfg && mkdir decoy && ln -s decoy cfg && ls -l")]),
        toolTurn([
          bash("cat", "cat dotfiles/zed/settings.json; mv dotfiles/zed z; cat z/settings.json"),
          read("zed", "dotfiles/zed/settings.json"),
        ]),
      ],
      { XDG_CONFIG_HOME: join(project.cwd, "cfg") },
    );
    expectNoneLeaked(seen, secrets);
  },
);

sandboxSerialTest(
  "a store made after dsh started is pinned and known from the next command on",
  async () => {
    const project = rig.project("later");
    const config = join(project.env.HOME ?? "", ".config");
    mkdirSync(config, { recursive: true });
    let secrets: string[] = [];
    const seen = await exec(project, config, [
      toolTurn([bash("first", "ls")]),
      // The user signs in to rclone while the session runs, between two of its commands.
      after(
        () => {
          secrets = plant(config, ["rclone/rclone.conf"]);
        },
        toolTurn([bash("mv", "mv rclone r2; ls")]),
      ),
      toolTurn([bash("cat", "cat r2/rclone.conf rclone/rclone.conf"), read("r", "r2/rclone.conf")]),
    ]);
    expect(secrets.length).toBe(1);
    expectNoneLeaked(seen, secrets);
  },
);

sandboxSerialTest(
  "read_file knows a store by its inode after a move outside the sandbox",
  async () => {
    const project = rig.project("known");
    const config = join(project.env.HOME ?? "", ".config");
    const secrets = plant(config, ["zed/settings.json", "gh/hosts.yml"]);
    const seen = await exec(
      project,
      config,
      [
        // A move dsh did not make (an unsandboxed command, another program) after it started.
        after(
          () => {
            renameSync(join(config, "zed"), join(config, "zed.moved"));
            renameSync(join(config, "gh"), join(config, "gh.moved"));
          },
          toolTurn([
            read("zed", "zed.moved/settings.json"),
            read("gh", "gh.moved/hosts.yml"),
            { id: "grep", name: "grep", args: { pattern: "sk-moved", path: "." } },
          ]),
        ),
      ],
      { DSH_SANDBOX: "none" },
    );
    expectNoneLeaked(seen, secrets);
    expect(seen).toContain("is the same file as");
  },
);
