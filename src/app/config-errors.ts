/**
 * A bad config file in words a person fixes it with: the file and the line, the key, the keys
 * or values allowed there, and the one most likely meant. Bun's TOML parser says what is wrong
 * but not where, and valibot says where in the data but not in the file: the line is found
 * here, in the text, by the table headers and `key =` lines (for messages only; the parse is
 * Bun's).
 */
import type * as v from "valibot";
import { closestMatch } from "../closest-match.ts";

type AnySchema = v.GenericSchema;

/**
 * The message for a file that is not valid TOML: the parser's words and the line where the
 * file stops being valid (the first line after the longest prefix that parses).
 */
export function tomlSyntaxMessage(path: string, text: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const said = raw.replace(/^TOML Parse error:\s*/i, "");
  const lines = text.split("\n");
  let good = 0;
  for (let n = lines.length - 1; n > 0; n--) {
    if (parses(lines.slice(0, n).join("\n"))) {
      good = n;
      break;
    }
  }
  const line = Math.min(good + 1, lines.length);
  const shown = (lines[line - 1] ?? "").trim();
  return `${path}:${line}: not valid TOML: ${said}${shown === "" ? "" : ` (line ${line}: ${shown.slice(0, 80)})`}`;
}

function parses(text: string): boolean {
  try {
    Bun.TOML.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The message for data that parsed as TOML but does not fit `schema`. */
export function configIssueMessage(
  path: string,
  text: string,
  schema: AnySchema,
  issue: v.BaseIssue<unknown>,
): string {
  const keys = (issue.path ?? []).map((item) => item.key as string | number);
  const shownKey = keys.join(".");
  const line = lineOf(text, keys);
  const where = `${path}${line === undefined ? "" : `:${line}`}`;
  const last = keys.at(-1);
  if (issue.expected === "never" && typeof last === "string") {
    // An unknown key: strict objects name it as the last step of the path.
    const allowed = Object.keys(objectEntriesAt(schema, keys.slice(0, -1)) ?? {});
    const close = closestMatch(last, allowed);
    const hint = close === undefined ? "" : ` (did you mean "${close}"?)`;
    const list = allowed.length === 0 ? "" : `; allowed keys here: ${allowed.join(", ")}`;
    return `${where}: unknown key "${shownKey}"${hint}${list}`;
  }
  const choice = picklistAt(schema, keys);
  if (choice !== undefined) {
    const received = typeof issue.input === "string" ? issue.input : String(issue.input);
    const close = closestMatch(received, choice.options);
    const hint = close === undefined ? "" : `; did you mean "${close}"?`;
    // A setting's own words name its values already.
    if (choice.worded) return `${where}: ${shownKey}: ${issue.message}${hint}`;
    return `${where}: ${shownKey} = ${JSON.stringify(issue.input)} is not one of ${choice.options.join(", ")}${hint}`;
  }
  return `${where}: ${shownKey === "" ? "" : `${shownKey}: `}${issue.message}`;
}

/** The schema itself once optional, nullable, lazy and pipe wrappers are taken off. */
function unwrap(schema: AnySchema | undefined): AnySchema | undefined {
  let current = schema;
  for (let i = 0; i < 10 && current !== undefined; i++) {
    const s = current as AnySchema & {
      wrapped?: AnySchema;
      getter?: (input: unknown) => AnySchema;
      pipe?: readonly AnySchema[];
    };
    if (s.wrapped !== undefined) current = s.wrapped;
    else if (s.type === "lazy" && s.getter !== undefined) current = s.getter(undefined);
    else if (s.pipe !== undefined && s.pipe[0] !== current) current = s.pipe[0];
    else return current;
  }
  return current;
}

/** The schema a path of keys leads to. */
function schemaAt(schema: AnySchema, keys: readonly (string | number)[]): AnySchema | undefined {
  let current = unwrap(schema);
  for (const key of keys) {
    const s = current as
      | (AnySchema & {
          entries?: Record<string, AnySchema>;
          item?: AnySchema;
          value?: AnySchema;
        })
      | undefined;
    if (s === undefined) return undefined;
    if (typeof key === "number") current = unwrap(s.item);
    else if (s.entries !== undefined) current = unwrap(s.entries[key]);
    else current = unwrap(s.value);
  }
  return current;
}

function objectEntriesAt(
  schema: AnySchema,
  keys: readonly (string | number)[],
): Record<string, unknown> | undefined {
  const at = schemaAt(schema, keys) as
    | (AnySchema & { entries?: Record<string, unknown> })
    | undefined;
  return at?.entries;
}

/** The values a picklist allows, and whether it words its own issue (a setting's choice). */
function picklistAt(
  schema: AnySchema,
  keys: readonly (string | number)[],
): { readonly options: string[]; readonly worded: boolean } | undefined {
  const at = schemaAt(schema, keys) as
    | (AnySchema & { options?: readonly unknown[]; message?: unknown })
    | undefined;
  if (at?.type !== "picklist" || at.options === undefined) return undefined;
  return { options: at.options.map(String), worded: at.message !== undefined };
}

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/;

/**
 * The 1-based line of `keys` in the TOML `text`: the `key =` line inside the table the path
 * names (the n-th `[[name]]` for an array index; an inline table is searched inside the
 * table that holds it), else that table's header; undefined if not found.
 */
export function lineOf(text: string, keys: readonly (string | number)[]): number | undefined {
  const last = keys.at(-1);
  const key = typeof last === "string" ? last : undefined;
  const tablePath = keys.slice(0, key === undefined ? keys.length : -1);
  // The path may name a table itself (`[mcp_servers.a]` for an issue of that table).
  const table = findIn(text.split("\n"), keys, undefined).table;
  if (table !== undefined) return table;
  let header: number | undefined;
  for (let n = tablePath.length; n >= 0; n--) {
    const found = findIn(text.split("\n"), tablePath.slice(0, n), key);
    if (found.key !== undefined) return found.key;
    header ??= found.table;
  }
  return header;
}

/** The line of `key` within the table `tablePath`, and the line of that table's header. */
function findIn(
  lines: readonly string[],
  tablePath: readonly (string | number)[],
  key: string | undefined,
): { readonly key?: number; readonly table?: number } {
  const counts = new Map<string, number>();
  let inTarget = tablePath.length === 0;
  let tableLine: number | undefined;
  const assignment =
    key === undefined ? undefined : new RegExp(`(^|[\\s{,])"?${escapeRegExp(key)}"?\\s*=`);
  for (const [index, line] of lines.entries()) {
    const header = HEADER.exec(line);
    if (header !== null) {
      const names = (header[2] ?? "").split(".").map((name) => name.trim().replace(/^"|"$/g, ""));
      let table: (string | number)[] = names;
      if (header[1] === "[[") {
        const name = names.join(".");
        const n = counts.get(name) ?? 0;
        counts.set(name, n + 1);
        table = [...names, n];
      }
      // Past the table: the key is not in it.
      if (inTarget && tableLine !== undefined) return { table: tableLine };
      inTarget = sameKeys(table, tablePath);
      if (inTarget) tableLine = index + 1;
      continue;
    }
    if (inTarget && assignment?.test(line) === true) return { key: index + 1 };
  }
  return tableLine === undefined ? {} : { table: tableLine };
}

function sameKeys(a: readonly (string | number)[], b: readonly (string | number)[]): boolean {
  return a.length === b.length && a.every((key, i) => String(key) === String(b[i]));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A union's own issue says little; the sub-issue that got furthest names the real problem
 * (on a tie, an unknown key: a typo in a strict object explains more than a missing key).
 * Sub-issue paths are relative to the union, so the path is rebuilt on the way down.
 */
export function deepestIssue(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown> {
  const walk = (at: v.BaseIssue<unknown>, prefix: v.IssuePathItem[]): v.BaseIssue<unknown> => {
    const path = [...prefix, ...(at.path ?? [])] as [v.IssuePathItem, ...v.IssuePathItem[]];
    let best: v.BaseIssue<unknown> = { ...at, path };
    for (const sub of at.issues ?? []) {
      const candidate = walk(sub, path);
      const longer = (candidate.path?.length ?? 0) > (best.path?.length ?? 0);
      const typo = candidate.path?.length === best.path?.length && candidate.expected === "never";
      if (longer || typo) best = candidate;
    }
    return best;
  };
  return walk(issue, []);
}
