import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { readContextFile } from "../../src/file-safety/context-read.ts";
import type { ContextOrigin } from "../../src/file-safety/context-read.ts";
import { secretPlacesOf } from "../../src/file-safety/credential-paths.ts";
import { runIf } from "../support/gate.ts";
import { makeSandbox } from "../tools/harness.ts";
import type { Sandbox } from "../tools/harness.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box[Symbol.dispose]());

function read(
  file: string,
  within = box.root,
  signal = new AbortController().signal,
  origin: ContextOrigin = "instructions",
) {
  return readContextFile({
    path: file,
    within,
    maxBytes: 1024,
    secrets: secretPlacesOf({ home: box.home, stateDir: path.join(box.base, "state") }),
    origin,
    signal,
  });
}

test("a text file inside the directory comes back whole, with the file it resolved to", async () => {
  const file = box.write("docs/notes.md", "\uFEFFnotes\n");
  fs.symlinkSync("docs/notes.md", path.join(box.root, "link.md"));
  expect(await read(path.join(box.root, "link.md"))).toEqual({
    type: "text",
    path: path.join(box.root, "link.md"),
    real: file,
    text: "notes\n",
  });
});

test("a missing file is missing; a dangling symlink, a directory or a relative path is refused", async () => {
  expect(await read(path.join(box.root, "none.md"))).toEqual({
    type: "missing",
    path: path.join(box.root, "none.md"),
  });
  fs.symlinkSync(path.join(box.root, "gone.md"), path.join(box.root, "dangling.md"));
  fs.mkdirSync(path.join(box.root, "dir.md"));
  const refusals = await Promise.all(
    [path.join(box.root, "dangling.md"), path.join(box.root, "dir.md"), "relative.md"].map((file) =>
      read(file),
    ),
  );
  expect(refusals.map((result) => result.type)).toEqual(["refused", "refused", "refused"]);
  expect(refusals.map((result) => (result.type === "refused" ? result.reason : ""))).toEqual([
    "it is a symlink to nothing",
    `${path.join(box.root, "dir.md")} is a directory; use glob to list its files`,
    "the path is not absolute, or holds a NUL byte",
  ]);
});

runIf(
  process.platform === "linux",
  test,
  "/proc and /sys are Linux's",
)("kernel files are refused even when the directory allows them", async () => {
  for (const file of ["/proc/self/status", "/sys/kernel/uevent_seqnum"]) {
    const result = await read(file, "/");
    expect(result.type).toBe("refused");
    expect(result.type === "refused" ? result.reason : "").toContain("on the kernel's");
  }
});

test("a file over the limit is refused whole, never cut", async () => {
  const file = box.write("big.md", "x".repeat(1025));
  expect(await read(file)).toEqual({
    type: "refused",
    path: file,
    reason: "it is 1 KiB (1025 bytes), over the 1 KiB limit",
  });
  box.write("exact.md", "x".repeat(1024));
  expect((await read(path.join(box.root, "exact.md"))).type).toBe("text");
});

test("an aborted read rejects with the signal's reason", async () => {
  const file = box.write("a.md", "a\n");
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await expect(read(file, box.root, controller.signal)).rejects.toThrow("stop");
});

test("a link with another name that leads to a file holding secrets is refused, as such", async () => {
  box.write(".env", "API_KEY=x\n");
  box.write(".git/config", "[remote]\n");
  fs.symlinkSync(".env", path.join(box.root, "AGENTS.md"));
  fs.symlinkSync(".env", path.join(box.root, ".env.example"));
  fs.symlinkSync(".git", path.join(box.root, "docs"));
  for (const [file, origin] of [
    ["AGENTS.md", "instructions"],
    ["AGENTS.md", "mention"],
    [".env.example", "mention"],
    ["docs/config", "mention"],
  ] as const) {
    const result = await read(path.join(box.root, file), box.root, undefined, origin);
    expect({ file, type: result.type, secret: result.type === "refused" && result.secret }).toEqual(
      {
        file,
        type: "refused",
        secret: true,
      },
    );
  }
  // Named itself in a prompt, it is the user's choice; dsh's own reads never take it.
  expect((await read(path.join(box.root, ".env"), box.root, undefined, "mention")).type).toBe(
    "text",
  );
  expect((await read(path.join(box.root, ".env"))).type).toBe("refused");
});

test("a hard-linked file, and for dsh's own reads a private key, are refused as possible secrets", async () => {
  const env = box.write(".env", "API_KEY=x\n");
  fs.linkSync(env, path.join(box.root, "AGENTS.md"));
  expect(await read(path.join(box.root, "AGENTS.md"))).toEqual({
    type: "refused",
    path: path.join(box.root, "AGENTS.md"),
    reason: "it has 2 hard links, so it may be a file that holds secrets under another name",
    secret: true,
  });
  const key = box.write("docs/deploy.md", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n");
  expect((await read(key)).type).toBe("refused");
  expect((await read(key, box.root, undefined, "mention")).type).toBe("text");
});
