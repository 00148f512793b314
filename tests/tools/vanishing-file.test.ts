import { afterEach, beforeEach, expect, test } from "bun:test";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { coreTools, makeSandbox, recordingAnswerer, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box[Symbol.dispose]());

// A process keeps creating and removing `f` and `d/` while the tools check them: a path that
// disappears between being resolved and being examined is reported as missing, never as an
// internal error.
test("a file removed while being checked is reported as gone, not as an internal error", async () => {
  const registry = createToolRegistry(coreTools({ homeDir: box.home }));
  const churn = Bun.spawn(["sh", "-c", "while :; do : > f; mkdir d; rm -f f; rmdir d; done"], {
    cwd: box.root,
    stdout: "ignore",
    stderr: "ignore",
  });
  const outputs = new Map<string, number>();
  try {
    for (let i = 0; i < 1200; i++) {
      const [tool, args] =
        i % 3 === 0
          ? ["write_file", { path: "f", content: "x" }]
          : i % 3 === 1
            ? ["grep", { pattern: "x", path: "d" }]
            : ["glob", { pattern: "*", path: "d" }];
      const ctx = toolContext(box.root, { answerers: [recordingAnswerer("deny")] });
      const call = await registry.execute(tool, JSON.stringify(args), ctx);
      const kind = call.result.output.split(":")[0] ?? "";
      outputs.set(kind, (outputs.get(kind) ?? 0) + 1);
    }
  } finally {
    churn.kill("SIGKILL");
    await churn.exited;
  }
  expect(outputs.get("internal error")).toBeUndefined();
});
