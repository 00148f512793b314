/**
 * The rule book: permission rules per project in `$DSH_HOME/rules.json` (mode 0600). dsh's
 * state directory is hidden from sandboxed commands and refused by the file tools, so nothing
 * the model runs or writes can add a rule. The file is read at each use, so a rule saved by
 * one process applies in every other at once; writes replace it atomically.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { ApprovalSubject } from "../approval/types.ts";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import { covers } from "./match.ts";
import { Rule, type RuleOffer, type SavedRule } from "./types.ts";

const RulesFile = v.object({
  version: v.literal(1),
  projects: v.record(v.string(), v.array(Rule)),
});
type RulesFile = v.InferOutput<typeof RulesFile>;

export interface RuleBook {
  /** Whether a saved rule of `project` allows `subject`; rejects only when it cannot tell. */
  covers(project: string, subject: ApprovalSubject): Promise<boolean>;
  /** Saves the offer's rules (those not already saved). */
  add(offer: RuleOffer): void;
  /** Every rule, grouped by project in the order saved; `dsh rules` numbers them from 1. */
  list(): SavedRule[];
  /** Removes the rule `dsh rules` lists as number `n`; false when there is none. */
  remove(n: number): boolean;
}

export interface RuleBookDeps {
  /** dsh's state directory (`DSH_HOME`). */
  readonly home: string;
  readonly logger: Logger;
}

/** Opens the rule book of a state directory; nothing is read until it is used. */
export function createRuleBook(deps: RuleBookDeps): RuleBook {
  const path = join(deps.home, "rules.json");

  const read = (): RulesFile => {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return { version: 1, projects: {} };
    }
    try {
      const parsed = v.safeParse(RulesFile, JSON.parse(text));
      if (parsed.success) return parsed.output;
      deps.logger.warn("ignoring a malformed permission rules file", { path });
    } catch (error) {
      deps.logger.warn("ignoring an unreadable permission rules file", {
        path,
        error: errorMessage(error),
      });
    }
    return { version: 1, projects: {} };
  };

  const write = (file: RulesFile) => {
    mkdirSync(deps.home, { recursive: true, mode: 0o700 });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, path);
  };

  const list = (): SavedRule[] =>
    Object.entries(read().projects).flatMap(([project, rules]) =>
      rules.map((rule) => ({ project, rule })),
    );

  return {
    covers: (project, subject) => covers(read().projects[project] ?? [], subject),
    add(offer) {
      const file = read();
      const rules = file.projects[offer.project] ?? [];
      for (const rule of offer.rules) {
        if (!rules.some((saved) => JSON.stringify(saved) === JSON.stringify(rule)))
          rules.push(rule);
      }
      write({ ...file, projects: { ...file.projects, [offer.project]: rules } });
    },
    list,
    remove(n) {
      const target = list()[n - 1];
      if (target === undefined) return false;
      const file = read();
      const rules = (file.projects[target.project] ?? []).filter(
        (rule) => JSON.stringify(rule) !== JSON.stringify(target.rule),
      );
      const projects = { ...file.projects, [target.project]: rules };
      if (rules.length === 0) delete projects[target.project];
      write({ ...file, projects });
      return true;
    },
  };
}
