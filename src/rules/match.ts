/**
 * Which rules cover a request, and which rules an "always allow" answer would save. A command
 * is covered only when every simple command in it starts with a rule's words; text the parser
 * cannot read safely (substitutions, redirections to files, ...) is never covered.
 */
import { dirname, sep } from "node:path";
import type { ApprovalSubject } from "../approval/types.ts";
import { isWithin } from "../paths.ts";
import { coversHost, hostRuleOf, hostRuleText } from "./host-rule.ts";
import { parseCommand } from "./shell-command.ts";
import type { Rule, RuleOffer } from "./types.ts";

/** Words that read like a subcommand (`test`, `run`, `build:prod`), not an argument. */
const SUBCOMMAND = /^[a-z][a-z0-9:_-]*$/;
/** The most subcommand words a rule keeps after the command's name (`npm run lint`). */
const MAX_SUBCOMMANDS = 2;

/** True when `rules` allow `subject` in their project. */
export function covers(rules: readonly Rule[], subject: ApprovalSubject): boolean {
  switch (subject.type) {
    case "command": {
      const parsed = parseCommand(subject.command);
      if (!parsed.ok) return false;
      return parsed.commands.every((words) =>
        rules.some((rule) => rule.type === "command" && startsWith(words, rule.words)),
      );
    }
    case "write":
      return rules.some((rule) => rule.type === "write_dir" && isWithin(rule.dir, subject.path));
    case "mcp_tool":
      return rules.some((rule) => rule.type === "mcp_tool" && rule.tool === subject.tool);
    case "host":
      return coversHost(rules, subject);
    default: {
      const unhandled: never = subject;
      return unhandled;
    }
  }
}

/**
 * The rules an "always allow" would save for `subject`, or undefined when none can be made
 * (a command the parser refuses is asked about every time).
 */
export function offerFor(
  project: string,
  subject: ApprovalSubject,
  home: string | undefined,
): RuleOffer | undefined {
  const where = shortPath(project, home);
  switch (subject.type) {
    case "command": {
      const parsed = parseCommand(subject.command);
      if (!parsed.ok) return undefined;
      const rules: Rule[] = [];
      for (const words of parsed.commands) {
        const rule: Rule = { type: "command", words: leadingWords(words) };
        if (!rules.some((r) => r.type === "command" && same(r.words, rule.words))) rules.push(rule);
      }
      const names = rules.map((r) => (r.type === "command" ? `\`${r.words.join(" ")}\`` : ""));
      return { project, rules, label: `Always allow ${names.join(", ")} in ${where}` };
    }
    case "write": {
      const dir = dirname(subject.path);
      return {
        project,
        rules: [{ type: "write_dir", dir }],
        label: `Always allow writes in ${shortPath(dir, home)} for ${where}`,
      };
    }
    case "mcp_tool":
      return {
        project,
        rules: [{ type: "mcp_tool", tool: subject.tool }],
        label: `Always allow ${subject.tool} in ${where}`,
      };
    case "host":
      return {
        project,
        rules: [hostRuleOf(subject)],
        label: `Always allow \`${hostRuleText(subject)}\` in ${where}`,
      };
    default: {
      const unhandled: never = subject;
      return unhandled;
    }
  }
}

/**
 * The words a rule keeps: the command's name and the subcommands after it (`git status`,
 * `npm run lint`); a command without subcommands keeps every word, so `rm -rf build` never
 * becomes a rule for every `rm`.
 */
export function leadingWords(words: readonly string[]): string[] {
  const [name = "", ...rest] = words;
  const subcommands: string[] = [];
  for (const word of rest) {
    if (subcommands.length === MAX_SUBCOMMANDS || !SUBCOMMAND.test(word)) break;
    subcommands.push(word);
  }
  return subcommands.length === 0 ? [...words] : [name, ...subcommands];
}

/** A rule's one-line description, for `dsh rules` and `/status`. */
export function describeRule(rule: Rule): string {
  switch (rule.type) {
    case "command":
      return `run \`${rule.words.join(" ")}\` outside the sandbox`;
    case "write_dir":
      return `write files in ${rule.dir}`;
    case "mcp_tool":
      return `call ${rule.tool}`;
    case "host":
      return `let sandboxed commands connect to ${hostRuleText(rule)}`;
    default: {
      const unhandled: never = rule;
      return unhandled;
    }
  }
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && startsWith(a, b);
}

/** `~/src/app` for a path under home. */
function shortPath(path: string, home: string | undefined): string {
  if (home === undefined || home === "/" || home === "") return path;
  if (path === home) return "~";
  return path.startsWith(`${home}${sep}`) ? `~${path.slice(home.length)}` : path;
}
