/**
 * Markdown with YAML front matter: the `---` block at the top of a skill, a custom command or a
 * custom agent. The YAML is read by `yaml` (eemeli/yaml: YAML 1.2, duplicate keys refused, a
 * bound on alias expansion), loaded at the first file that has front matter, so `dsh acp`'s
 * start-up never pays for it.
 */
import { errorMessage } from "../errors.ts";

/** A file's front matter and body, or why its front matter cannot be read. */
export type FrontMatter =
  | {
      readonly ok: true;
      /** The front matter's keys; empty when the file has none. */
      readonly data: Readonly<Record<string, unknown>>;
      /** Everything after the closing `---` line (all of the file without front matter). */
      readonly body: string;
      /** Whether the file opens with a front matter block at all. */
      readonly present: boolean;
    }
  | { readonly ok: false; readonly reason: string };

let yaml: Promise<typeof import("yaml")> | undefined;
const loadYaml = () => {
  yaml ??= import("yaml");
  return yaml;
};

/** The opening or closing line of front matter: `---`, trailing blanks allowed. */
const FENCE = /^---[ \t]*$/;
/** YAML's own end-of-document marker closes front matter too. */
const END = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Splits `text` into front matter and body and reads the front matter as a YAML mapping. A file
 * that does not start with a `---` line has no front matter (`present: false`). Never throws:
 * an unclosed block, YAML that does not parse or a front matter that is not a mapping is a
 * reason naming the line, for a warning.
 */
export async function parseFrontMatter(text: string): Promise<FrontMatter> {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = source.split("\n");
  if (!FENCE.test(stripCr(lines[0] ?? ""))) {
    return { ok: true, data: {}, body: source, present: false };
  }
  const close = lines.findIndex((line, i) => i > 0 && END.test(stripCr(line)));
  if (close < 0) return { ok: false, reason: "the front matter has no closing --- line" };
  const yamlText = lines.slice(1, close).map(stripCr).join("\n");
  const body = lines.slice(close + 1).join("\n");
  const data = await readMapping(yamlText);
  if (typeof data === "string") return { ok: false, reason: data };
  return { ok: true, data, body, present: true };
}

/** The YAML text as a mapping, or a reason (file lines counted from the opening `---`). */
async function readMapping(text: string): Promise<Record<string, unknown> | string> {
  if (text.trim() === "") return {};
  const { parse, YAMLError } = await loadYaml();
  let value: unknown;
  try {
    // `logLevel: "error"`: an unknown tag is read as its plain value, without a warning that the
    // library would print on stderr.
    value = parse(text, { logLevel: "error", maxAliasCount: 100, uniqueKeys: true });
  } catch (error) {
    // Whatever the parser throws is about the text (an alias bomb is a ReferenceError).
    const at = error instanceof YAMLError ? error.linePos?.[0] : undefined;
    const message = errorMessage(error).replace(/ at line \d+, column \d+:[\s\S]*$/, "");
    return at === undefined
      ? `the front matter is not valid YAML: ${message}`
      : `the front matter is not valid YAML (line ${at.line + 1}, column ${at.col}): ${message}`;
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    return "the front matter is not a mapping of keys to values";
  }
  return Object.fromEntries(Object.entries(value));
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
