import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { mountAliases, parseMountTable } from "../../src/exec/mount-aliases.ts";

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "dsh-mounts-")));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test("mountinfo lines give device, root and mount point, with octal escapes undone", () => {
  const text = [
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
    "63 27 254:0 /home/u /mnt/my\\040home rw,relatime shared:1 - ext4 /dev/vda rw",
    "garbage",
    "",
  ].join("\n");
  expect(parseMountTable(text)).toEqual([
    { device: "254:0", root: "/", mountPoint: "/" },
    { device: "254:0", root: "/home/u", mountPoint: "/mnt/my home" },
  ]);
});

test("a store shows again wherever a mount of its file system covers it, when it is the same inode", () => {
  const home = path.join(dir, "home");
  fs.mkdirSync(path.join(home, ".aws"), { recursive: true });
  // Stand-ins for mount points: a link to home shows the same inodes, a copy does not.
  fs.symlinkSync(home, path.join(dir, "bound"));
  fs.mkdirSync(path.join(dir, "other", ".aws"), { recursive: true });
  const mounts = [
    { device: "1:1", root: "/", mountPoint: "/" },
    { device: "1:1", root: home, mountPoint: path.join(dir, "bound") },
    { device: "1:1", root: home, mountPoint: path.join(dir, "other") },
    { device: "9:9", root: "/", mountPoint: path.join(dir, "elsewhere") },
  ];
  expect(mountAliases(path.join(home, ".aws"), mounts)).toEqual([path.join(dir, "bound", ".aws")]);
  expect(mountAliases(path.join(dir, "missing"), mounts)).toEqual([]);
});
