import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { coreTools, makeSandbox, recordingAnswerer, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box[Symbol.dispose]());

// sandbox.md §4 row 37: a process keeps swapping `R/d` between a real directory and a symlink
// to `R-evil` while write_file targets `R/d/...`. The answerer denies, so a write may only
// happen when the checks saw the real directory; none may land in R-evil.
test("a symlink swapped in between the checks and the write never redirects it", async () => {
  const registry = createToolRegistry(coreTools({ homeDir: box.home }));
  const swapper = Bun.spawn(
    [
      "sh",
      "-c",
      'while :; do rm -rf d; mkdir d; rm -rf d; ln -s "$1" d; done',
      "swapper",
      box.evil,
    ],
    { cwd: box.root, stdout: "ignore", stderr: "ignore" },
  );
  const outcomes = { written: 0, refused: 0 };
  try {
    for (let i = 0; i < 300; i++) {
      const target = i % 2 === 0 ? "d/f.txt" : "d/sub/g.txt";
      const ctx = toolContext(box.root, { answerers: [recordingAnswerer("deny")] });
      const call = await registry.execute(
        "write_file",
        JSON.stringify({ path: target, content: `${i}` }),
        ctx,
      );
      if (call.result.isError) outcomes.refused++;
      else outcomes.written++;
    }
  } finally {
    swapper.kill("SIGKILL");
    await swapper.exited;
  }
  expect(fs.readdirSync(box.evil)).toEqual([]);
  expect(outcomes.written + outcomes.refused).toBe(300);
  // The race must actually have been run: some writes saw the real directory.
  expect(outcomes.written).toBeGreaterThan(0);
});
