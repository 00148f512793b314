import { expect, test } from "bun:test";
import { namesToKeep, seatbeltProfile } from "../../src/exec/seatbelt.ts";

const plan = {
  mode: "workspace-write" as const,
  workspace: "/Users/u/.config",
  tempDirs: ["/private/tmp"],
  stateDir: "/Users/u/.local/share/dsh",
  protectedDirs: [],
  gitControl: [],
  secrets: [{ type: "file" as const, path: "/Users/u/.config/zed/settings.json" }],
  projectConfig: [
    { type: "dir" as const, path: "/Users/u/.config/.vscode" },
    { type: "file" as const, path: "/Users/u/.config/.npmrc" },
  ],
  keepNames: ["/Users/u/.config/zed"],
  network: false,
};

test("seatbelt denies writing project configuration and renaming what holds protected paths", () => {
  const { profile, params } = seatbeltProfile(plan);
  expect(profile).toContain('(subpath (param "CONFIG_0")) (literal (param "CONFIG_1")))');
  expect(profile).toContain('(deny file-write-unlink (literal (param "KEEP_0")))');
  expect(params).toContain("CONFIG_0=/Users/u/.config/.vscode");
  expect(params).toContain("KEEP_0=/Users/u/.config/zed");
  // The unlink rule comes after the write allowance, so it wins.
  expect(profile.indexOf("file-write-unlink")).toBeGreaterThan(
    profile.indexOf("(allow file-write*"),
  );
});

test("the names to keep are the directories strictly between a writable root and each path", () => {
  expect(
    namesToKeep(
      ["/w", "/private/tmp"],
      ["/w/a/b/c.json", "/w/x", "/w", "/elsewhere/y", "/w/a/d", "/private/tmp/t/u"],
    ).sort(),
  ).toEqual(["/private/tmp/t", "/w/a", "/w/a/b"]);
});
