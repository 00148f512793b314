import { expect, test } from "bun:test";
import { createCompleter } from "../../src/cli/completion.ts";

test("Tab completes every command the session offers, MCP prompts' server:prompt names too", async () => {
  const complete = createCompleter({
    commands: () => ["status", "skills", "pdf-forms", "docs:summarize", "docs:search", "v1.2"],
    cwd: () => "/nonexistent-dsh-dir",
    home: undefined,
  });
  const candidates = async (text: string) => (await complete(text, text.length)).candidates;
  expect(await Promise.all(["/s", "/pdf", "/docs:", "/docs:su", "/v1."].map(candidates))).toEqual([
    ["/status", "/skills"],
    ["/pdf-forms"],
    ["/docs:summarize", "/docs:search"],
    ["/docs:summarize"],
    ["/v1.2"],
  ]);
});
