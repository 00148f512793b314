/** `dsh rules`: the saved "always allow" rules, numbered, with their project; `rm N` removes one. */
import { loadConfig } from "./config.ts";
import { errorMessage } from "../errors.ts";
import { createLogger } from "../log.ts";
import { describeRule } from "../rules/match.ts";
import { createRuleBook } from "../rules/store.ts";
import { type CliIo, printError } from "../cli/io.ts";
import { terminalText } from "../render/terminal-text.ts";

export function runRules(io: CliIo, remove: number | undefined): number {
  const config = loadConfig(io.env);
  const book = createRuleBook({
    home: config.home,
    logger: createLogger({ destination: config.log, level: "warn" }),
  });
  if (remove !== undefined) {
    const rule = book.list()[remove - 1];
    let removed = false;
    try {
      removed = rule !== undefined && book.remove(remove);
    } catch (error) {
      printError(io, errorMessage(error));
      return 1;
    }
    if (rule === undefined || !removed) {
      printError(io, `there is no rule ${remove}; dsh rules lists them`);
      return 1;
    }
    io.stdout.write(
      terminalText(`removed rule ${remove}: ${describeRule(rule.rule)} in ${rule.project}\n`),
    );
    return 0;
  }
  const rules = book.list();
  if (rules.length === 0) {
    io.stdout.write('no saved rules (answer "always allow" to a permission request to save one)\n');
    return 0;
  }
  rules.forEach((saved, index) => {
    io.stdout.write(
      terminalText(
        `${String(index + 1).padStart(3)}  ${saved.project}  ${describeRule(saved.rule)}\n`,
      ),
    );
  });
  return 0;
}
