/** The rule book on disk: rules older versions saved, entries this version cannot read, damage. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConflictError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { describeRule } from "../../src/rules/match.ts";
import { createRuleBook } from "../../src/rules/store.ts";

function stateDir() {
  const path = mkdtempSync(join(tmpdir(), "dsh-rule-book-"));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

const outside = (command: string) =>
  ({ type: "command", command, where: "outside_sandbox" }) as const;

/** A rules file as dsh 0.2 wrote it: command rules without a place, MCP rules by flat name. */
const OLD_FILE = {
  version: 1,
  projects: {
    "/p": [
      { type: "command", words: ["git", "status"] },
      { type: "mcp_tool", tool: "mcp__a__b__c" },
      { type: "write_dir", dir: "/notes" },
    ],
  },
};

describe("the rule book", () => {
  test("reads rules older versions saved: commands outside the sandbox, flat MCP names covering nothing", async () => {
    using dir = stateDir();
    writeFileSync(join(dir.path, "rules.json"), JSON.stringify(OLD_FILE));
    const book = createRuleBook({ home: dir.path, logger: silentLogger });
    expect(book.list().map((saved) => describeRule(saved.rule))).toEqual([
      "run `git status` outside the sandbox",
      "call mcp__a__b__c (saved by an older dsh without its server: it covers nothing)",
      "write files in /notes",
    ]);
    expect(
      await Promise.all([
        book.covers("/p", outside("git status --short")),
        book.covers("/p", { type: "mcp_tool", server: "a", tool: "b__c" }),
        book.covers("/p", { type: "mcp_tool", server: "a__b", tool: "c" }),
      ]),
    ).toEqual([true, false, false]);
  });

  test("a rule saved again in the new form is not saved twice", () => {
    using dir = stateDir();
    writeFileSync(join(dir.path, "rules.json"), JSON.stringify(OLD_FILE));
    const book = createRuleBook({ home: dir.path, logger: silentLogger });
    book.add({
      project: "/p",
      rules: [{ type: "command", words: ["git", "status"], where: "outside_sandbox" }],
      label: "",
    });
    expect(book.list()).toHaveLength(3);
  });

  test("an entry it cannot read is listed, covers nothing, and is kept as it was by every write", async () => {
    using dir = stateDir();
    const unknown = { type: "command", words: ["git", "status"], where: "on_the_moon" };
    const file = { version: 1, projects: { "/p": [unknown, { type: "write_dir", dir: "/a" }] } };
    writeFileSync(join(dir.path, "rules.json"), JSON.stringify(file));
    const book = createRuleBook({ home: dir.path, logger: silentLogger });
    expect(book.list().map((saved) => describeRule(saved.rule))).toEqual([
      "a rule this version of dsh cannot read (it covers nothing)",
      "write files in /a",
    ]);
    expect(await book.covers("/p", outside("git status"))).toBe(false);
    book.add({ project: "/q", rules: [{ type: "write_dir", dir: "/b" }], label: "" });
    expect(book.remove(2)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir.path, "rules.json"), "utf8"))).toEqual({
      version: 1,
      projects: { "/p": [unknown], "/q": [{ type: "write_dir", dir: "/b" }] },
    });
  });

  test("a file it cannot read covers nothing and is never overwritten", async () => {
    using dir = stateDir();
    const path = join(dir.path, "rules.json");
    const texts = ['{"version": 2, "projects": {}}', "{ not json"];
    for (const text of texts) {
      writeFileSync(path, text);
      const book = createRuleBook({ home: dir.path, logger: silentLogger });
      expect(await book.covers("/p", outside("git status"))).toBe(false);
      expect(book.list()).toEqual([]);
      expect(() =>
        book.add({ project: "/p", rules: [{ type: "write_dir", dir: "/b" }], label: "" }),
      ).toThrow(ConflictError);
      expect(() => book.remove(1)).toThrow(ConflictError);
      expect(readFileSync(path, "utf8")).toBe(text);
    }
  });

  test("dsh rules rm N removes exactly the Nth entry", () => {
    using dir = stateDir();
    const book = createRuleBook({ home: dir.path, logger: silentLogger });
    const rules = ["/a", "/b", "/c"].map((d) => ({ type: "write_dir" as const, dir: d }));
    book.add({ project: "/p", rules, label: "" });
    book.add({ project: "/q", rules: [{ type: "write_dir", dir: "/d" }], label: "" });
    expect([book.remove(2), book.remove(3), book.remove(3)]).toEqual([true, true, false]);
    expect(book.list()).toEqual([
      { project: "/p", rule: { type: "write_dir", dir: "/a" } },
      { project: "/p", rule: { type: "write_dir", dir: "/c" } },
    ]);
  });
});
