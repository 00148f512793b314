import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { coreTools, makeSandbox, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box[Symbol.dispose]());

const SECRET = "PRIVATE-KEY-MATERIAL";

// Swaps two paths atomically (renameat2 with RENAME_EXCHANGE) as fast as it can, so that the
// directory is never missing: every read sees either the real directory or the symlink.
const EXCHANGE_LOOP = [
  "import ctypes, sys",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "a, b = sys.argv[1].encode(), sys.argv[2].encode()",
  "while True: libc.renameat2(-100, a, -100, b, 2)",
].join("\n");
// Without python: a shell loop, slower and with moments where the name is missing.
const SHELL_LOOP = 'while :; do mv "$1" "$1.tmp"; ln -s "$2" "$1"; rm "$1"; mv "$1.tmp" "$1"; done';

function startSwapper(directory: string, link: string, linkTarget: string) {
  const python = Bun.which("python3");
  if (python === null) {
    console.warn("python3 is missing: the read race uses a slower shell swap loop");
    return Bun.spawn(["sh", "-c", SHELL_LOOP, "swapper", directory, linkTarget], {
      stdout: "ignore",
      stderr: "ignore",
    });
  }
  return Bun.spawn([python, "-c", EXCHANGE_LOOP, directory, link], {
    stdout: "ignore",
    stderr: "ignore",
  });
}

// The race: `R/d` keeps trading places with a symlink into `~/.ssh` while read_file
// and grep open `d/id_rsa`. The checks run on one version of the path and the open may see
// the other; whatever was opened is checked again, so the key never comes back.
test("a directory swapped for a symlink into ~/.ssh never leaks a key to reads", async () => {
  fs.mkdirSync(path.join(box.home, ".ssh"));
  fs.writeFileSync(path.join(box.home, ".ssh", "id_rsa"), `${SECRET}\n`);
  box.write("d/id_rsa", "harmless\n");
  const directory = path.join(box.root, "d");
  const link = path.join(box.root, "d.link");
  fs.symlinkSync(path.join(box.home, ".ssh"), link);
  const registry = createToolRegistry(coreTools({ homeDir: box.home }));
  const outcomes = { leaked: 0, read: 0, refused: 0 };
  const swapper = startSwapper(directory, link, path.join(box.home, ".ssh"));
  try {
    for (let i = 0; i < 2000; i++) {
      const call =
        i % 8 === 7
          ? await registry.execute(
              "grep",
              JSON.stringify({ pattern: ".", path: "d" }),
              toolContext(box.root),
            )
          : await registry.execute(
              "read_file",
              JSON.stringify({ path: "d/id_rsa" }),
              toolContext(box.root),
            );
      if (call.result.output.includes(SECRET)) outcomes.leaked++;
      else if (call.result.isError) outcomes.refused++;
      else outcomes.read++;
    }
  } finally {
    swapper.kill("SIGKILL");
    await swapper.exited;
  }
  expect(outcomes.leaked).toBe(0);
  // The race must actually have been run: some reads saw the real directory.
  expect(outcomes.read).toBeGreaterThan(0);
  expect(outcomes.read + outcomes.refused).toBe(2000);
});
