/**
 * Which rules cover a request, and which rules an "always allow" answer would save. A command
 * is covered only when bash's grammar reads it as nothing but simple commands of plain words
 * (`shell-command.ts`) and every one of them starts with a rule's words, for the same place
 * (outside the sandbox); anything else is never covered, and asked about every time.
 */
import { dirname, sep } from "node:path";
import { isWithin } from "../paths.ts";
import { coversHost, hostRuleOf, hostRuleText } from "./host-rule.ts";
import { parseCommand } from "./shell-command.ts";
import type { ApprovalSubject, CommandPlace, Rule, RuleOffer } from "./types.ts";

/** Words that read like a subcommand (`test`, `run`, `build:prod`), not an argument. */
const SUBCOMMAND = /^[a-z][a-z0-9:_-]*$/;
/** The most subcommand words a rule keeps after the command's name (`npm run lint`). */
const MAX_SUBCOMMANDS = 2;

/**
 * True when `rules` allow `subject` in their project. Rejects only when bash's grammar cannot
 * be loaded; the caller then asks.
 */
export async function covers(rules: readonly Rule[], subject: ApprovalSubject): Promise<boolean> {
  switch (subject.type) {
    case "command": {
      const commandRules = rules.filter(
        (rule) => rule.type === "command" && rule.where === subject.where,
      );
      if (commandRules.length === 0) return false;
      const parsed = await parseCommand(subject.command);
      if (!parsed.ok) return false;
      return parsed.commands.every((words) =>
        commandRules.some((rule) => rule.type === "command" && startsWith(words, rule.words)),
      );
    }
    case "write":
      return rules.some((rule) => rule.type === "write_dir" && isWithin(rule.dir, subject.path));
    case "mcp_tool":
      return rules.some(
        (rule) =>
          rule.type === "mcp_tool" && rule.server === subject.server && rule.tool === subject.tool,
      );
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
 * (a command bash's grammar does not read as plain simple commands is asked about every time).
 */
export async function offerFor(
  project: string,
  subject: ApprovalSubject,
  home: string | undefined,
): Promise<RuleOffer | undefined> {
  const where = shortPath(project, home);
  switch (subject.type) {
    case "command": {
      const parsed = await parseCommand(subject.command);
      if (!parsed.ok) return undefined;
      const rules: Rule[] = [];
      for (const words of parsed.commands) {
        const rule: Rule = { type: "command", words: leadingWords(words), where: subject.where };
        if (!rules.some((r) => r.type === "command" && same(r.words, rule.words))) rules.push(rule);
      }
      const names = rules.map((r) => (r.type === "command" ? `\`${r.words.join(" ")}\`` : ""));
      return {
        project,
        rules,
        label: `Always allow ${names.join(", ")} ${placeText(subject.where)} in ${where}`,
      };
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
        rules: [{ type: "mcp_tool", server: subject.server, tool: subject.tool }],
        label: `Always allow ${mcpToolText(subject.server, subject.tool)} in ${where}`,
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

/** A rule's one-line description, for `dsh rules`; undefined is an entry dsh cannot read. */
export function describeRule(rule: Rule | undefined): string {
  if (rule === undefined) return "a rule this version of dsh cannot read (it covers nothing)";
  switch (rule.type) {
    case "command":
      return `run \`${rule.words.join(" ")}\` ${placeText(rule.where)}`;
    case "write_dir":
      return `write files in ${rule.dir}`;
    case "mcp_tool":
      return rule.server === undefined
        ? `call ${rule.tool} (saved by an older dsh without its server: it covers nothing)`
        : `call ${mcpToolText(rule.server, rule.tool)}`;
    case "host":
      return `let sandboxed commands and web_fetch connect to ${hostRuleText(rule)}`;
    default: {
      const unhandled: never = rule;
      return unhandled;
    }
  }
}

function placeText(where: CommandPlace): string {
  switch (where) {
    case "outside_sandbox":
      return "outside the sandbox";
    default: {
      const unhandled: never = where;
      return unhandled;
    }
  }
}

function mcpToolText(server: string, tool: string): string {
  return `\`${tool}\` of the MCP server \`${server}\``;
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
