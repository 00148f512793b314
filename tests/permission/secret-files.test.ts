import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { holdsPrivateKey, secretFileReason } from "../../src/permission/secret-files.ts";
import { tempDir } from "../exec/helpers.ts";

test("a file holds secrets by its name: .env*, token files, private keys, git's own files", () => {
  const secret = [
    "/p/.env",
    "/p/.env.local",
    "/p/.ENV.production",
    "/p/.envrc",
    "/p/pkg/.npmrc",
    "/p/.netrc",
    "/p/deploy/credentials",
    "/p/keys/id_ed25519",
    "/p/keys/id_rsa",
    "/p/tls/server.key",
    "/p/tls/cert.PEM",
    "/p/android/release.keystore",
    "/p/.git/config",
    "/p/vendor/lib/.git/HEAD",
  ];
  expect(secret.filter((path) => secretFileReason(path) === undefined)).toEqual([]);
  const plain = ["/p/README.md", "/p/env.ts", "/p/id_rsa.pub", "/p/.gitignore", "/p/my.git/x"];
  expect(plain.map((path) => secretFileReason(path))).toEqual(Array(plain.length).fill(undefined));
});

test("a file inside a git directory not named .git (a bare repository) holds secrets too", () => {
  using dir = tempDir();
  const bare = join(dir.path, "vendor.git");
  mkdirSync(join(bare, "objects"), { recursive: true });
  writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
  expect(secretFileReason(join(bare, "config"), dir.path)).toContain("git's own files");
  expect(secretFileReason(join(dir.path, "notes.md"), dir.path)).toBeUndefined();
});

test("a private key block is told from text that merely mentions one", () => {
  expect(holdsPrivateKey("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n")).toBe(true);
  expect(holdsPrivateKey("-----BEGIN OPENSSH PRIVATE KEY-----\n")).toBe(true);
  expect(holdsPrivateKey("Never commit a private key.\n-----BEGIN PUBLIC KEY-----")).toBe(false);
});
