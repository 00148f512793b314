/**
 * The rule book: permission rules per project in `$DSH_HOME/rules.json` (mode 0600). dsh's
 * state directory is hidden from sandboxed commands and refused by the file tools, so nothing
 * the model runs or writes can add a rule. The file is read at each use, so a rule saved by
 * one process applies in every other at once; writes replace it atomically.
 *
 * Entries are read one by one: an entry this version cannot read (written by a newer dsh, or
 * damaged) covers nothing, is listed as such, and is written back as it was. A file that cannot
 * be read at all covers nothing and is never overwritten.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { ConflictError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import { covers } from "./match.ts";
import { type ApprovalSubject, Rule, type RuleOffer, type SavedRule } from "./types.ts";

const RulesFile = v.object({
  version: v.literal(1),
  projects: v.record(v.string(), v.array(v.unknown())),
});
type RulesFile = v.InferOutput<typeof RulesFile>;

export interface RuleBook {
  /** Whether a saved rule of `project` allows `subject`; rejects only when it cannot tell. */
  covers(project: string, subject: ApprovalSubject): Promise<boolean>;
  /** Saves the offer's rules (those not already saved); throws when the file cannot be read. */
  add(offer: RuleOffer): void;
  /** Every entry, grouped by project in the order saved; `dsh rules` numbers them from 1. */
  list(): SavedRule[];
  /** Removes the entry `dsh rules` lists as number `n`; false when there is none. */
  remove(n: number): boolean;
}

export interface RuleBookDeps {
  /** dsh's state directory (`DSH_HOME`). */
  readonly home: string;
  readonly logger: Logger;
}

/** What the file holds, or why it is unusable. */
type Read = { readonly ok: true; readonly file: RulesFile } | { readonly ok: false };

/** Opens the rule book of a state directory; nothing is read until it is used. */
export function createRuleBook(deps: RuleBookDeps): RuleBook {
  const path = join(deps.home, "rules.json");
  const empty = (): RulesFile => ({ version: 1, projects: {} });

  const read = (): Read => {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return { ok: true, file: empty() };
    }
    try {
      const parsed = v.safeParse(RulesFile, JSON.parse(text));
      if (parsed.success) return { ok: true, file: parsed.output };
      deps.logger.warn("ignoring a malformed permission rules file", { path });
    } catch (error) {
      deps.logger.warn("ignoring an unreadable permission rules file", {
        path,
        error: errorMessage(error),
      });
    }
    return { ok: false };
  };

  const writable = (): RulesFile => {
    const current = read();
    if (!current.ok) {
      throw new ConflictError(
        `the permission rules file ${path} cannot be read, so it is left as it is; fix or remove it`,
        { path },
      );
    }
    return current.file;
  };

  const write = (file: RulesFile) => {
    mkdirSync(deps.home, { recursive: true, mode: 0o700 });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, path);
  };

  const rulesOf = (project: string): Rule[] => {
    const current = read();
    if (!current.ok) return [];
    return (current.file.projects[project] ?? []).flatMap((entry) => readRule(entry) ?? []);
  };

  return {
    covers: (project, subject) => covers(rulesOf(project), subject),
    add(offer) {
      const file = writable();
      const saved = [...(file.projects[offer.project] ?? [])];
      const known = new Set(saved.map(canonical));
      for (const rule of offer.rules) {
        if (known.has(canonical(rule))) continue;
        known.add(canonical(rule));
        saved.push(rule);
      }
      write({ ...file, projects: { ...file.projects, [offer.project]: saved } });
    },
    list() {
      const current = read();
      if (!current.ok) return [];
      return Object.entries(current.file.projects).flatMap(([project, rules]) =>
        rules.map((entry) => ({ project, rule: readRule(entry) })),
      );
    },
    remove(n) {
      const file = writable();
      let index = n - 1;
      for (const [project, rules] of Object.entries(file.projects)) {
        if (index >= rules.length) {
          index -= rules.length;
          continue;
        }
        if (index < 0) return false;
        const kept = rules.filter((_, i) => i !== index);
        const projects = { ...file.projects, [project]: kept };
        if (kept.length === 0) delete projects[project];
        write({ ...file, projects });
        return true;
      }
      return false;
    },
  };
}

function readRule(entry: unknown): Rule | undefined {
  const parsed = v.safeParse(Rule, entry);
  return parsed.success ? parsed.output : undefined;
}

/** One form per rule, so a rule saved again is recognised (an old entry without `where` too). */
function canonical(entry: unknown): string {
  return JSON.stringify(readRule(entry) ?? entry);
}
