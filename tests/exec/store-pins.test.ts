import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCredentialMasker, storePins } from "../../src/exec/guards.ts";
import { protectWorkspace } from "../../src/exec/workspace-guards.ts";
import { tempDir } from "./helpers.ts";
import { loadDirCalls } from "../../src/exec/load-dir-calls.ts";

const walk = { calls: await loadDirCalls() };

describe("credential stores inside the workspace keep their names", () => {
  test("a store's parent and every directory up to the workspace are pinned, in mount order", () => {
    using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(join(ws, "xdg", "Code", "User"), { recursive: true });
    mkdirSync(join(ws, "xdg", "gh"));
    writeFileSync(join(ws, "xdg", "Code", "User", "settings.json"), "{}");
    const masker = createCredentialMasker(
      { home: join(dir.path, "home"), configHome: join(ws, "xdg") },
      () => [],
    );
    const masks = masker();
    expect(masks).toEqual([
      { type: "dir", path: join(ws, "xdg", "gh") },
      { type: "file", path: join(ws, "xdg", "Code", "User", "settings.json") },
    ]);
    const pinned = storePins(masks, ws);
    expect(pinned.sort()).toEqual([join(ws, "xdg"), join(ws, "xdg", "Code", "User")]);
    const { guards } = protectWorkspace(ws, {
      stateDir: join(dir.path, "state"),
      git: { home: join(dir.path, "home") },
      pinned,
      walk,
    });
    expect(guards.filter((guard) => guard.type === "pin")).toEqual([
      { type: "pin", path: join(ws, "xdg") },
      { type: "pin", path: join(ws, "xdg", "Code") },
      { type: "pin", path: join(ws, "xdg", "Code", "User") },
    ]);
  });

  test("stores outside the workspace, and the workspace itself, need no pin", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "home", ".ssh"), { recursive: true });
    const masks = createCredentialMasker({ home: join(dir.path, "home") }, () => [])();
    expect(storePins(masks, join(dir.path, "project"))).toEqual([]);
    expect(storePins(masks, join(dir.path, "home", ".ssh"))).toEqual([]);
  });

  test("a store reached through a symlink is masked and pinned where it really is, and stays masked there when the link is pointed elsewhere", () => {
    using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(join(ws, "dotfiles", "zed"), { recursive: true });
    mkdirSync(join(ws, "decoy"));
    writeFileSync(join(ws, "dotfiles", "zed", "settings.json"), "{}");
    symlinkSync("dotfiles", join(ws, "cfg"));
    const masker = createCredentialMasker(
      { home: join(dir.path, "home"), configHome: join(ws, "cfg") },
      () => [],
    );
    const first = masker();
    expect(first).toEqual([{ type: "file", path: join(ws, "cfg", "zed", "settings.json") }]);
    expect(storePins(first, ws)).toEqual([join(ws, "dotfiles", "zed")]);
    rmSync(join(ws, "cfg"));
    symlinkSync("decoy", join(ws, "cfg"));
    expect(masker()).toEqual([
      { type: "file", path: join(ws, "dotfiles", "zed", "settings.json") },
    ]);
    // Gone, or replaced by another kind of entry: no longer masked.
    rmSync(join(ws, "dotfiles", "zed", "settings.json"));
    mkdirSync(join(ws, "dotfiles", "zed", "settings.json"));
    expect(masker()).toEqual([]);
  });
});
