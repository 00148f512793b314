import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { secretPlacesOf } from "../../src/file-safety/credential-paths.ts";
import { knownPlace, rememberPlace } from "../../src/file-safety/known-identities.ts";
import type { KnownIdentities } from "../../src/file-safety/known-identities.ts";
import { snapshotSecrets } from "../../src/file-safety/secret-identity.ts";
import { makeSandbox } from "../tools/harness.ts";
import type { Sandbox } from "../tools/harness.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box[Symbol.dispose]());

function plant(relative: string): string {
  const file = path.join(box.home, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "key = secret\n");
  return file;
}

test("a store moved after dsh first saw it is still known under its new name", () => {
  const zed = plant(".config/zed/settings.json");
  plant(".config/gh/hosts.yml");
  const places = secretPlacesOf({ home: box.home });
  const config = path.join(box.home, ".config");
  fs.renameSync(path.join(config, "zed"), path.join(config, "zed.moved"));
  fs.renameSync(path.join(config, "gh"), path.join(config, "gh.moved"));
  const secrets = snapshotSecrets(places);
  expect(secrets.match(path.join(config, "zed.moved", "settings.json"))).toEqual({
    place: zed,
    type: "file",
    kind: "credentials",
    reason: "editor settings, where agent servers' env (DSH_API_KEY) is kept",
  });
  expect(secrets.match(path.join(config, "gh.moved", "hosts.yml"))?.place).toBe(
    path.join(config, "gh"),
  );
  // A file that merely lies beside the moved store is not one.
  fs.writeFileSync(path.join(config, "zed.moved", "notes.txt"), "plain\n");
  expect(secrets.match(path.join(config, "zed.moved", "notes.txt"))).toBeUndefined();
});

test("a store that appears later is known from the next snapshot on, even once moved", () => {
  const places = secretPlacesOf({ home: box.home });
  plant(".config/rclone/rclone.conf");
  snapshotSecrets(places);
  const config = path.join(box.home, ".config");
  fs.renameSync(path.join(config, "rclone"), path.join(config, "r2"));
  expect(snapshotSecrets(places).match(path.join(config, "r2", "rclone.conf"))?.place).toBe(
    path.join(config, "rclone", "rclone.conf"),
  );
});

test("an inode number freed by a store and given to another file is told apart by birth time", () => {
  const known: KnownIdentities = new Map();
  const place = { type: "file", path: "/h/.netrc", kind: "credentials", reason: "r" } as const;
  const identity = (birthtimeNs: bigint) => ({
    dev: 1n,
    ino: 2n,
    nlink: 1n,
    birthtimeNs,
    isFile: () => true,
  });
  rememberPlace(known, identity(100n), place);
  expect(knownPlace(known, identity(100n))).toBe(place);
  expect(knownPlace(known, identity(200n))).toBeUndefined();
  // A file system that keeps no birth time: device and inode decide.
  expect(knownPlace(known, identity(0n))).toBe(place);
});
