/**
 * Splits shell text into the simple commands a command rule can be matched against, by a real
 * parse with bash's grammar. Text is readable only when the parse holds nothing but simple
 * commands of plain words (literal words, single- and double-quoted strings without
 * expansions), with at most harmless redirections (`N>&M`, `N>&-`, `N>/dev/null`,
 * `N>>/dev/null`, `N</dev/null`), joined by `&&`, `||`, `;`, `|` and newlines. Anything else is
 * refused with the class of something in the way, and so is any text between the parts
 * that is not blanks, operators or newlines where bash takes one: where the grammar and bash
 * could disagree, nothing is read.
 */
import type { Node } from "web-tree-sitter";
import type { Refusal } from "./refusal.ts";
import { readCommandName, readWord } from "./shell-words.ts";

export type ParsedCommand =
  /** Each simple command's words as bash sees them (quotes removed), in order. */
  | { readonly ok: true; readonly commands: readonly (readonly string[])[] }
  | { readonly ok: false; readonly reason: Refusal };

/** The longest text read: Linux takes no longer single argument (`bash -c TEXT`). */
const MAX_TEXT = 128 * 1024;

/** Control characters but tab and newline, and DEL: bash and the grammar read them apart. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** Nodes that may hold a word, and what their subtrees may hold. */
const ARGUMENT = new Set([
  "word",
  "string",
  "string_content",
  "raw_string",
  "concatenation",
  "number",
]);
const REDIRECT_OPERATORS = new Set([">&", ">&-", ">>", ">", "<"]);
const REDIRECT = /^[0-9]*(>&|>>|>|<)[ \t]*(.*)$/s;

/** What a node the shape does not allow stands for. */
const NODE_REFUSAL: Readonly<Record<string, Refusal>> = {
  ERROR: "parse-error",
  comment: "comment",
  heredoc_redirect: "here-document",
  heredoc_body: "here-document",
  heredoc_start: "here-document",
  heredoc_content: "here-document",
  heredoc_end: "here-document",
  herestring_redirect: "here-string",
  file_redirect: "redirection",
  simple_expansion: "expansion",
  expansion: "expansion",
  special_variable_name: "expansion",
  variable_name: "expansion",
  subscript: "expansion",
  ansi_c_string: "ansi-c-quoting",
  translated_string: "locale-quoting",
  command_substitution: "command-substitution",
  process_substitution: "process-substitution",
  arithmetic_expansion: "arithmetic",
  binary_expression: "arithmetic",
  unary_expression: "arithmetic",
  postfix_expression: "arithmetic",
  ternary_expression: "arithmetic",
  parenthesized_expression: "arithmetic",
  brace_expression: "brace-expansion",
  extglob_pattern: "glob",
  variable_assignment: "assignment",
  variable_assignments: "assignment",
  array: "assignment",
  subshell: "group",
  compound_statement: "group",
  function_definition: "function",
  if_statement: "control-flow",
  elif_clause: "control-flow",
  else_clause: "control-flow",
  while_statement: "control-flow",
  for_statement: "control-flow",
  c_style_for_statement: "control-flow",
  case_statement: "control-flow",
  case_item: "control-flow",
  do_group: "control-flow",
  test_command: "control-flow",
  test_operator: "control-flow",
  negated_command: "control-flow",
  regex: "control-flow",
  declaration_command: "declaration",
  unset_command: "declaration",
  "&": "background",
  "|&": "operator",
  ";;": "operator",
  ";&": "operator",
  ";;&": "operator",
  "$(": "command-substitution",
  "`": "command-substitution",
  "$((": "arithmetic",
  "((": "arithmetic",
  "$[": "arithmetic",
  "${": "expansion",
  "[[": "control-flow",
};

type SpanKind = "word" | "redirect" | "and-or" | "pipe" | "semicolon";

/** A stretch of the text that the walk read; what lies between spans is checked after. */
interface Span {
  readonly start: number;
  readonly end: number;
  readonly kind: SpanKind;
  /** The simple command a word or redirection belongs to; -1 for an operator. */
  readonly command: number;
}

/** Thrown inside the walk with the reason; caught by `readProgram`, never escapes it. */
class Refused {
  constructor(readonly reason: Refusal) {}
}

/**
 * Parses `text` with bash's grammar; see the module comment for what is readable. Rejects only
 * when the grammar cannot be loaded (the caller then treats the text as not covered).
 */
export async function parseCommand(text: string): Promise<ParsedCommand> {
  const early = precheck(text);
  if (early !== undefined) return { ok: false, reason: early };
  const { loadBashParser } = await import("./bash-grammar.ts");
  const tree = (await loadBashParser()).parse(text);
  try {
    return readProgram(text, tree.rootNode);
  } finally {
    tree.delete();
  }
}

function precheck(text: string): Refusal | undefined {
  if (text.length > MAX_TEXT) return "too-long";
  if (CONTROL.test(text) || !text.isWellFormed()) return "control-character";
  if (text.replaceAll("\\\n", "").trim() === "") return "empty";
  return undefined;
}

function readProgram(text: string, root: Node): ParsedCommand {
  if (root.hasError) return { ok: false, reason: "parse-error" };
  const walk = new Walk(text);
  try {
    walk.program(root);
    walk.checkGaps();
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason };
    throw error;
  }
  if (walk.commands.length === 0) return { ok: false, reason: "empty" };
  return { ok: true, commands: walk.commands };
}

class Walk {
  readonly commands: string[][] = [];
  private readonly spans: Span[] = [];
  /** Redirections written after a statement, pushed to be read once the statement is. */
  private readonly trailing = new Set<number>();

  constructor(private readonly text: string) {}

  /** Reads the statements in text order; an explicit stack, so long `&&` chains cannot overflow. */
  program(root: Node): void {
    const pending: Node[] = [];
    const expand = (node: Node, operators: ReadonlyMap<string, SpanKind>) => {
      const children = node.children.filter((child): child is Node => child !== null);
      for (const child of children.reverse()) {
        if (child.isNamed) {
          pending.push(child);
          continue;
        }
        const kind = operators.get(child.type);
        if (kind === undefined) throw new Refused(refusalOf(child, this.text));
        this.spans.push({ start: child.startIndex, end: child.endIndex, kind, command: -1 });
      }
    };
    expand(root, PROGRAM_OPERATORS);
    for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
      switch (node.type) {
        case "command":
          this.command(node);
          break;
        case "list":
          expand(node, LIST_OPERATORS);
          break;
        case "pipeline":
          expand(node, PIPE_OPERATORS);
          break;
        case "redirected_statement":
          this.redirected(node, pending);
          break;
        case "file_redirect":
          // One `redirected` pushed belongs to the command just read; no other is read here.
          if (!this.trailing.delete(node.id)) throw new Refused("redirection");
          this.redirect(node, this.commands.length - 1);
          break;
        default:
          throw new Refused(refusalOf(node, this.text));
      }
    }
  }

  /** A statement with redirections after it: the statement first, then each redirection. */
  private redirected(node: Node, pending: Node[]): void {
    const body = node.childForFieldName("body");
    const rest = node.children.filter(
      (child): child is Node => child !== null && child.id !== body?.id,
    );
    if (body === null) throw new Refused("redirection");
    for (const child of rest.reverse()) {
      if (child.type !== "file_redirect") throw new Refused(refusalOf(child, this.text));
      this.trailing.add(child.id);
      pending.push(child);
    }
    pending.push(body);
  }

  private command(node: Node): void {
    const index = this.commands.length;
    const words: string[] = [];
    let named = false;
    for (const child of node.children) {
      if (child === null) continue;
      if (child.type === "file_redirect" && !named) {
        this.redirect(child, index);
        continue;
      }
      if (child.type === "command_name" && !named) {
        named = true;
        const part = onlyChild(child);
        if (part === undefined || !ARGUMENT.has(part.type)) {
          throw new Refused(refusalOf(part ?? child, this.text));
        }
        words.push(this.word(part, index, readCommandName));
        continue;
      }
      if (named && ARGUMENT.has(child.type)) {
        words.push(this.word(child, index, readWord));
        continue;
      }
      throw new Refused(refusalOf(child, this.text));
    }
    if (!named) throw new Refused("redirection");
    this.commands.push(words);
  }

  private word(node: Node, command: number, read: typeof readWord): string {
    assertPlain(node, this.text);
    const result = read(this.source(node));
    if (!result.ok) throw new Refused(result.reason);
    this.spans.push({ start: node.startIndex, end: node.endIndex, kind: "word", command });
    return result.word;
  }

  private redirect(node: Node, command: number): void {
    if (command < 0) throw new Refused("redirection");
    const children = node.children.filter((child): child is Node => child !== null);
    const from = children[0]?.type === "file_descriptor" ? 1 : 0;
    const operator = children[from];
    const target = children[from + 1];
    const closes = operator?.type === ">&-" && children.length === from + 1;
    if (!closes && (children.length !== from + 2 || target === undefined || !target.isNamed)) {
      throw new Refused(target === undefined ? "redirection" : refusalOf(target, this.text));
    }
    if (operator === undefined || !REDIRECT_OPERATORS.has(operator.type)) {
      throw new Refused("redirection");
    }
    if (target !== undefined) assertPlain(target, this.text);
    const parts = REDIRECT.exec(this.source(node));
    if (parts === null || !harmless(parts[1] ?? "", parts[2] ?? "")) {
      throw new Refused("redirection");
    }
    this.spans.push({ start: node.startIndex, end: node.endIndex, kind: "redirect", command });
  }

  /**
   * Everything the walk did not read must be what bash reads the same way: blanks between the
   * words of a command, blanks and newlines around operators and between statements.
   */
  checkGaps(): void {
    const spans = this.spans.toSorted((a, b) => a.start - b.start);
    let previous: Span | undefined;
    for (const span of [...spans, undefined]) {
      const start = previous?.end ?? 0;
      const end = span?.start ?? this.text.length;
      if (end < start) throw new Refused("unreadable");
      checkGap(this.text.slice(start, end), previous, span);
      previous = span;
    }
  }

  private source(node: Node): string {
    return this.text.slice(node.startIndex, node.endIndex);
  }
}

const PROGRAM_OPERATORS: ReadonlyMap<string, SpanKind> = new Map([[";", "semicolon"]]);
const LIST_OPERATORS: ReadonlyMap<string, SpanKind> = new Map([
  ["&&", "and-or"],
  ["||", "and-or"],
]);
const PIPE_OPERATORS: ReadonlyMap<string, SpanKind> = new Map([["|", "pipe"]]);

/** `N>&M` and `N>&-` duplicate or close; the rest must name `/dev/null` (discard, or read nothing). */
function harmless(operator: string, target: string): boolean {
  if (operator === ">&") return /^(?:[0-9]+|-)$/.test(target);
  const read = readWord(target);
  return read.ok && read.word === "/dev/null";
}

/** Blanks, or blanks after a `\`-newline bash drops; newlines only where bash takes them. */
function checkGap(gap: string, before: Span | undefined, after: Span | undefined): void {
  const joined = gap.replaceAll("\\\n", "");
  let fits: boolean;
  if (before === undefined || after === undefined) fits = /^[ \t\n]*$/.test(joined);
  else if (before.command >= 0 && before.command === after.command) {
    fits = /^[ \t]+$/.test(joined);
  } else if (before.command < 0) fits = /^[ \t\n]*$/.test(joined);
  else if (after.command < 0) fits = /^[ \t]*$/.test(joined);
  else fits = /^[ \t]*\n[ \t\n]*$/.test(joined);
  if (!fits) throw new Refused(gap.includes("\\\n") ? "continuation" : "unreadable");
}

/** A word's node holds only word parts: any other node in it is what makes it more. */
function assertPlain(node: Node, text: string): void {
  const pending: Node[] = [node];
  for (let part = pending.pop(); part !== undefined; part = pending.pop()) {
    if (part.isNamed ? !ARGUMENT.has(part.type) : part.type !== '"') {
      throw new Refused(refusalOf(part, text));
    }
    for (const child of part.children) if (child !== null) pending.push(child);
  }
}

function onlyChild(node: Node): Node | undefined {
  const children = node.children.filter((child): child is Node => child !== null);
  return children.length === 1 ? children[0] : undefined;
}

function refusalOf(node: Node, text: string): Refusal {
  if (node.type === "compound_statement" && node.firstChild?.type === "((") return "arithmetic";
  if (node.type === "$") return text[node.endIndex] === '"' ? "locale-quoting" : "expansion";
  return NODE_REFUSAL[node.type] ?? "unreadable";
}
