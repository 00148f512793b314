import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createGrepTool } from "../../src/tools/grep.ts";
import { secretPlacesOf } from "../../src/file-safety/credential-paths.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { makeSandbox, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

// Nested quantifiers over overlapping classes backtrack exponentially on a line that almost
// matches. JavaScriptCore gives up on one such line after about a second; in-process, a file
// of them would hold the event loop (every session, cancel, stdin) for that long per line.
const EVIL_PATTERN = "(\\w+\\s?)+$";
const EVIL_LINE = `${"a".repeat(30)}!`;

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
  box.write("ok.txt", "fine line\n");
  box.write("evil.txt", `${EVIL_LINE}\n`.repeat(5));
});
afterEach(() => box[Symbol.dispose]());

/** Counts timer ticks while `work` runs: ticks prove the event loop stayed free. */
async function ticking<T>(
  work: () => Promise<T>,
): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const started = performance.now();
  try {
    const value = await work();
    return { value, ticks, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe("grep with a catastrophic regex", () => {
  test("stops at the time budget with a clear error; the event loop stays free", async () => {
    const grep = createGrepTool({
      secrets: secretPlacesOf({ home: box.home }),
      matchBudgetMs: 300,
    });
    const registry = createToolRegistry([grep]);
    const {
      value: call,
      ticks,
      ms,
    } = await ticking(() =>
      registry.execute("grep", JSON.stringify({ pattern: EVIL_PATTERN }), toolContext(box.root)),
    );
    expect(call.result).toEqual({
      isError: true,
      output:
        `grep stopped: /${EVIL_PATTERN}/ took over 0.3 s to match, so it likely backtracks ` +
        "without end (nested quantifiers such as (a+)+); simplify the pattern " +
        "or narrow the path or glob",
    });
    expect(ms).toBeLessThan(5_000);
    expect(ticks).toBeGreaterThan(10);
  });

  test("a cancel ends the match at once", async () => {
    const tool = createGrepTool({ secrets: secretPlacesOf({ home: box.home }) });
    const controller = new AbortController();
    const ctx = toolContext(box.root, { signal: controller.signal });
    const started = performance.now();
    const running = tool.execute({ pattern: EVIL_PATTERN }, ctx);
    // The abort comes from the tenth tick of a timer: it can only fire if the loop stays free
    // while the match runs, however loaded the machine is.
    let ticks = 0;
    const timer = setInterval(() => {
      if (++ticks === 10) controller.abort();
    }, 5);
    const outcome = await running.then(
      () => "finished",
      (error: unknown) => (error instanceof Error ? error.name : "other"),
    );
    clearInterval(timer);
    expect(outcome).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("an ordinary pattern still finds its lines in a batch after the evil file", async () => {
    const registry = createToolRegistry([
      createGrepTool({ secrets: secretPlacesOf({ home: box.home }) }),
    ]);
    const call = await registry.execute(
      "grep",
      JSON.stringify({ pattern: "^fine|a{30}!$", ignore_case: true }),
      toolContext(box.root),
    );
    const evil = [1, 2, 3, 4, 5].map((line) => `evil.txt:${line}:${EVIL_LINE}`);
    expect(call.result.output).toBe([...evil, "ok.txt:1:fine line"].join("\n"));
  });
});
