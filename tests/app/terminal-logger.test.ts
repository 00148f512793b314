import { expect, test } from "bun:test";
import { createTerminalLogger } from "../../src/app/terminal-logger.ts";

test("on the terminal, warnings and errors are one plain line each; info and debug are left out", () => {
  let out = "";
  const logger = createTerminalLogger({ write: (text) => void (out += text) });
  logger.debug("noise", { a: 1 });
  logger.info("model request failed; retrying", { try: 1 });
  logger.warn("instruction file refused; it is not in the system prompt", {
    path: "/p/AGENTS.md",
    reason: "holds credentials\u001b]0;x\u0007",
  });
  logger.error("turn failed", { error: new Error("boom\nsecond line") });
  expect(out).toBe(
    [
      'dsh: warning: instruction file refused; it is not in the system prompt: path "/p/AGENTS.md", reason "holds credentials\\u001b]0;x\\u0007"',
      'dsh: turn failed: error "boom\\nsecond line"',
      "",
    ].join("\n"),
  );
});
