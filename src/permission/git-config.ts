/**
 * Reads git config files the way git does for the keys dsh must know about (`core.hooksPath`,
 * `extensions.worktreeConfig`) and follows `include.path` / `includeIf.*.path` to every file a
 * config may pull in. A plain reader: it never runs git, and it treats every conditional
 * include as taken, so the set of files it names is a superset of what git reads.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** One `key = value` line; `section` and `key` are lower-cased, `subsection` kept as written. */
export interface ConfigEntry {
  readonly section: string;
  readonly subsection: string | undefined;
  readonly key: string;
  /** A key without `=` is a boolean true. */
  readonly value: string | true;
  /** The file the entry came from. */
  readonly file: string;
}

/** Every file read (or tried: missing ones too) and every entry, in git's order. */
export interface ConfigChain {
  readonly files: readonly string[];
  readonly entries: readonly ConfigEntry[];
}

/** Git stops at this include depth too (`MAX_INCLUDE_DEPTH`). */
const MAX_INCLUDE_DEPTH = 10;

/**
 * Reads `files` in order with their includes. Missing and unreadable files count as empty
 * but are listed, so a caller can keep them from being created. `home` expands `~/`.
 */
export function readConfigChain(files: readonly string[], home: string): ConfigChain {
  const visited: string[] = [];
  const entries: ConfigEntry[] = [];
  const visit = (file: string, depth: number) => {
    if (depth > MAX_INCLUDE_DEPTH || visited.includes(file)) return;
    visited.push(file);
    for (const entry of parseConfig(readOrEmpty(file), file)) {
      entries.push(entry);
      const including =
        (entry.section === "include" || entry.section === "includeif") && entry.key === "path";
      if (including && typeof entry.value === "string" && entry.value !== "") {
        visit(includedPath(entry.value, file, home), depth + 1);
      }
    }
  };
  for (const file of files) visit(file, 0);
  return { files: visited, entries };
}

/** Every value of `section.key` in a chain (any subsection), last one last. */
export function valuesOf(chain: ConfigChain, section: string, key: string): (string | true)[] {
  return chain.entries
    .filter((entry) => entry.section === section && entry.key === key)
    .map((entry) => entry.value);
}

/** An include path as git resolves it: `~/` from home, relative to the including file. */
function includedPath(value: string, from: string, home: string): string {
  if (value === "~" || value.startsWith("~/")) return join(home, value.slice(1));
  return isAbsolute(value) ? value : resolve(dirname(from), value);
}

/** Parses config text: sections, quoted values, escapes, comments and line continuations. */
export function parseConfig(text: string, file: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let section = "";
  let subsection: string | undefined;
  let i = 0;
  const at = () => text[i] ?? "";
  const skipLine = () => {
    while (i < text.length && at() !== "\n") i++;
  };
  while (i < text.length) {
    const char = at();
    if (char === "\n" || char === " " || char === "\t" || char === "\r") {
      i++;
    } else if (char === "#" || char === ";") {
      skipLine();
    } else if (char === "[") {
      const end = text.indexOf("]", i);
      if (end === -1) break;
      const header = text.slice(i + 1, end);
      const quoted = /^\s*([^\s"]+)\s+"((?:[^"\\]|\\.)*)"\s*$/.exec(header);
      if (quoted) {
        section = (quoted[1] ?? "").toLowerCase();
        subsection = (quoted[2] ?? "").replace(/\\(.)/g, "$1");
      } else {
        const [name, ...rest] = header.trim().split(".");
        section = (name ?? "").toLowerCase();
        subsection = rest.length > 0 ? rest.join(".").toLowerCase() : undefined;
      }
      i = end + 1;
    } else {
      const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(i))?.[0];
      if (name === undefined) {
        skipLine();
        continue;
      }
      i += name.length;
      while (at() === " " || at() === "\t") i++;
      if (at() !== "=") {
        entries.push({ section, subsection, key: name.toLowerCase(), value: true, file });
        skipLine();
        continue;
      }
      i++;
      const { value, next } = readValue(text, i);
      i = next;
      entries.push({ section, subsection, key: name.toLowerCase(), value, file });
    }
  }
  return entries;
}

function readValue(text: string, start: number): { value: string; next: number } {
  let value = "";
  let pending = "";
  let quoted = false;
  let i = start;
  const escapes: Record<string, string> = { n: "\n", t: "\t", b: "\b", '"': '"', "\\": "\\" };
  for (; i < text.length; i++) {
    const char = text[i] ?? "";
    if (char === "\n" && !quoted) break;
    if (!quoted && (char === "#" || char === ";")) {
      while (i < text.length && text[i] !== "\n") i++;
      break;
    }
    if (char === "\\") {
      const next = text[i + 1] ?? "";
      if (next === "\n") {
        i++;
        continue;
      }
      value += pending + (escapes[next] ?? next);
      pending = "";
      i++;
      continue;
    }
    if (char === '"') {
      value += pending;
      pending = "";
      quoted = !quoted;
      continue;
    }
    if (!quoted && (char === " " || char === "\t" || char === "\r")) {
      // Inner whitespace is kept, trailing whitespace is not.
      if (value !== "") pending += char;
      continue;
    }
    value += pending + char;
    pending = "";
  }
  return { value, next: i };
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
