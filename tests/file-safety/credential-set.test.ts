import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { credentialMasks, credentialSpellings } from "../../src/exec/guards.ts";
import { CREDENTIAL_ENTRIES, credentialStores } from "../../src/permission/credentials.ts";
import { PRESETS } from "../../src/permission/knobs.ts";
import {
  secretMatch,
  secretPlacesOf,
  secretRefusal,
} from "../../src/file-safety/credential-paths.ts";
import { snapshotSecrets } from "../../src/file-safety/secret-identity.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import type { ToolRegistry } from "../../src/tools/types.ts";
import { coreTools, makeSandbox, recordingAnswerer, toolContext } from "../tools/harness.ts";
import type { Sandbox } from "../tools/harness.ts";

const SECRET = "sk-the-secret-value";

let box: Sandbox;
let xdgConfig: string;
let xdgData: string;
let state: string;
let registry: ToolRegistry;
beforeEach(() => {
  box = makeSandbox();
  xdgConfig = path.join(box.base, "xdg-config");
  xdgData = path.join(box.base, "xdg-data");
  state = path.join(box.base, "state");
  registry = createToolRegistry(
    coreTools({
      homeDir: box.home,
      configHome: xdgConfig,
      dataHome: xdgData,
      stateDir: state,
    }),
  );
});
afterEach(() => box[Symbol.dispose]());

/** Writes a file holding the secret, parents created, and returns its path. */
function plant(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `token = ${SECRET}\n`);
  return file;
}

async function run(tool: string, args: Record<string, unknown>) {
  const answerer = recordingAnswerer("allow");
  const ctx = toolContext(box.root, {
    knobs: PRESETS["danger-full-access"],
    answerers: [answerer],
  });
  return (await registry.execute(tool, JSON.stringify(args), ctx)).result;
}

/** The stores the issue names, outside the old fixed list. */
function plantedStores(): string[] {
  const home = box.home;
  return [
    path.join(xdgConfig, "gh", "hosts.yml"),
    path.join(xdgConfig, "gcloud", "credentials.db"),
    path.join(home, ".config", "gh", "hosts.yml"),
    path.join(home, ".config", "git", "credentials"),
    path.join(xdgConfig, "git", "credentials"),
    path.join(home, ".codex", "auth.json"),
    path.join(home, ".config", "github-copilot", "apps.json"),
    path.join(home, ".config", "containers", "auth.json"),
    path.join(home, ".config", "rclone", "rclone.conf"),
    path.join(home, ".my.cnf"),
    path.join(home, ".config", "zed", "settings.json"),
    path.join(xdgConfig, "zed", "settings.json"),
    path.join(home, ".config", "Code", "User", "settings.json"),
    path.join(home, ".bash_history"),
    path.join(home, ".zsh_history"),
    path.join(home, ".python_history"),
    path.join(home, ".node_repl_history"),
    path.join(home, ".psql_history"),
    path.join(home, ".mysql_history"),
    path.join(home, ".local", "share", "fish", "fish_history"),
    path.join(xdgData, "fish", "fish_history"),
    path.join(state, "auth.json"),
  ].map(plant);
}

describe("the credential set", () => {
  test("every entry says why it is listed, and directories come before files", () => {
    expect(CREDENTIAL_ENTRIES.filter((entry) => entry.reason.trim() === "")).toEqual([]);
    const firstFile = CREDENTIAL_ENTRIES.findIndex((entry) => entry.type === "file");
    expect(CREDENTIAL_ENTRIES.slice(firstFile).some((entry) => entry.type === "dir")).toBe(false);
  });

  test("config and data stores are covered under both ~/.config and $XDG_CONFIG_HOME, once each", () => {
    const scope = { home: "/h", configHome: "/x/config", dataHome: "/x/data", stateDir: "/s" };
    const paths = credentialStores(scope).map((store) => store.path);
    expect(paths).toContain("/h/.config/gh");
    expect(paths).toContain("/x/config/gh");
    expect(paths).toContain("/h/.local/share/fish/fish_history");
    expect(paths).toContain("/x/data/fish/fish_history");
    expect(paths).toContain("/s/auth.json");
    expect(new Set(paths).size).toBe(paths.length);
    const same = credentialStores({ home: "/h", configHome: "/h/.config/" });
    expect(same.filter((store) => store.path === "/h/.config/gh").length).toBe(1);
    // XDG ignores relative values.
    const relative = credentialStores({ home: "/h", configHome: "rel/config" });
    expect(relative.some((store) => !path.isAbsolute(store.path))).toBe(false);
  });

  test("the sandbox masks every planted store and lists every one for rule-based sandboxes", () => {
    const planted = plantedStores();
    const scope = { home: box.home, configHome: xdgConfig, dataHome: xdgData, stateDir: state };
    const masks = credentialMasks(scope);
    const masked = (file: string) =>
      masks.some((mask) => file === mask.path || file.startsWith(`${mask.path}/`));
    expect(planted.filter((file) => !masked(file))).toEqual([]);
    const ruled = credentialSpellings(scope);
    const listed = (file: string) =>
      ruled.some((rule) => file === rule.path || file.startsWith(`${rule.path}/`));
    expect(planted.filter((file) => !listed(file))).toEqual([]);
  });
});

describe("the file tools refuse every store of the set", () => {
  test("read_file, edit_file and write_file refuse each one; nothing is read or changed", async () => {
    for (const file of plantedStores()) {
      const read = await run("read_file", { path: file });
      const edit = await run("edit_file", { path: file, old_string: SECRET, new_string: "x" });
      const write = await run("write_file", { path: file, content: "x" });
      for (const result of [read, edit, write]) {
        expect({ file, isError: result.isError }).toEqual({ file, isError: true });
        expect(result.output).not.toContain(SECRET);
      }
      expect(read.output).toMatch(/holds credentials; dsh does not read it$|state directory/);
      expect(fs.readFileSync(file, "utf8")).toBe(`token = ${SECRET}\n`);
    }
  });

  test("grep and glob over home and the XDG directories never show a store", async () => {
    const planted = plantedStores();
    plant(path.join(box.home, "notes.txt"));
    for (const base of [box.home, xdgConfig, xdgData, box.base]) {
      const grep = await run("grep", { pattern: SECRET, path: base });
      expect(grep.isError).toBe(false);
      for (const file of planted) expect(grep.output).not.toContain(file);
      const glob = await run("glob", { pattern: "**/*", path: base });
      for (const file of planted) expect(glob.output).not.toContain(file);
    }
    const inHome = await run("grep", { pattern: SECRET, path: box.home });
    expect(inHome.output).toBe(`${path.join(box.home, "notes.txt")}:1:token = ${SECRET}`);
  });
});

describe("hard links", () => {
  test("read_file refuses a file hard-linked to a store's file, wherever it lies", async () => {
    const credentials = plant(path.join(box.home, ".aws", "credentials"));
    const history = plant(path.join(box.home, ".bash_history"));
    fs.linkSync(credentials, path.join(box.root, "backup.txt"));
    fs.linkSync(history, path.join(box.root, "history.txt"));
    const aws = await run("read_file", { path: "backup.txt" });
    expect(aws).toEqual({
      isError: true,
      output: `${path.join(box.root, "backup.txt")} is under ${path.join(box.home, ".aws")}, which holds credentials; dsh does not read it`,
    });
    const bash = await run("read_file", { path: "history.txt" });
    expect(bash).toEqual({
      isError: true,
      output: `${path.join(box.root, "history.txt")} is the same file as ${history}, which holds credentials; dsh does not read it`,
    });
    const grep = await run("grep", { pattern: SECRET });
    expect(grep.output).toStartWith(`No matches for /${SECRET}/`);
    // An ordinary file with two links stays readable.
    box.write("a.txt", "plain\n");
    fs.linkSync(path.join(box.root, "a.txt"), path.join(box.root, "b.txt"));
    const plain = await run("read_file", { path: "b.txt" });
    expect(plain).toEqual({
      isError: false,
      output: "     1\tplain",
      details: { path: path.join(box.root, "b.txt"), firstLine: 1, lastLine: 1, totalLines: 1 },
    });
  });
});

describe("dsh's state directory", () => {
  test("no file tool reads, lists, searches or writes it", async () => {
    const transcript = plant(path.join(state, "sessions", "other.jsonl"));
    fs.symlinkSync(state, path.join(box.root, "state-link"));
    const attempts = [
      ["read_file", { path: transcript }],
      ["read_file", { path: "state-link/sessions/other.jsonl" }],
      ["grep", { pattern: SECRET, path: state }],
      ["glob", { pattern: "**/*.jsonl", path: state }],
      ["write_file", { path: path.join(state, "sessions", "forged.jsonl"), content: "{}\n" }],
      ["edit_file", { path: transcript, old_string: SECRET, new_string: "x" }],
    ] as const;
    for (const [tool, args] of attempts) {
      const result = await run(tool, args);
      expect({ tool, isError: result.isError }).toEqual({ tool, isError: true });
      expect(result.output).toContain("dsh's state directory");
    }
    // A search from above skips it without a word of its content.
    const grep = await run("grep", { pattern: SECRET, path: box.base });
    expect(grep.output).not.toContain(transcript);
    expect(fs.readdirSync(path.join(state, "sessions"))).toEqual(["other.jsonl"]);
  });
});

test("a hard-linked file is refused when the stores hold more files than the comparison visits", () => {
  const store = path.join(box.home, ".password-store");
  fs.mkdirSync(path.join(store, "nested"), { recursive: true });
  for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(store, "nested", `${i}.gpg`), "x");
  box.write("a.txt", "plain\n");
  fs.linkSync(path.join(box.root, "a.txt"), path.join(box.root, "b.txt"));
  box.write("single.txt", "one\n");
  const places = secretPlacesOf({ home: box.home });
  const b = path.join(box.root, "b.txt");
  // 11 entries: the directory and its ten files.
  expect(snapshotSecrets(places, 11).match(b)).toBeUndefined();
  expect(snapshotSecrets(places, 10).match(b)).toEqual({
    place: b,
    type: "file",
    kind: "unverified",
    reason:
      "it has 2 hard links, and the credential stores hold too many files to tell whether one of them is this file",
  });
  // A directory (two links or more, always) and a file with one link need no comparison.
  expect(snapshotSecrets(places, 0).match(path.join(box.root))).toBeUndefined();
  expect(snapshotSecrets(places, 0).match(path.join(box.root, "single.txt"))).toBeUndefined();
  expect(
    secretRefusal(b, { place: b, type: "file", kind: "unverified", reason: "why" }, "read"),
  ).toBe(`${b}: why; dsh does not read it`);
});

describe("where names fold case", () => {
  test("a store is refused under any case, existing or not; elsewhere only as spelled", () => {
    const scope = { home: "/Users/u" };
    const folded = secretPlacesOf(scope, { paths: path.posix, folds: true });
    const exact = secretPlacesOf(scope, { paths: path.posix, folds: false });
    const paths = ["/Users/u/.SSH/id_ed25519", "/users/U/.Aws/credentials", "/Users/u/.ssh/x"];
    expect(paths.map((p) => secretMatch(p, folded) !== undefined)).toEqual([true, true, true]);
    expect(paths.map((p) => secretMatch(p, exact) !== undefined)).toEqual([false, false, true]);
  });
});
