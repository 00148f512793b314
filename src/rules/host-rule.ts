/**
 * Host rules: what an "always allow" answer to the proxy's question saves, and how such a rule
 * reads in `dsh rules`. The subject is already normalised by the proxy (a lower-case name, or
 * an address in its canonical form with its port).
 */
import type { ApprovalSubject, Rule } from "./types.ts";

type HostSubject = Extract<ApprovalSubject, { type: "host" }>;
type HostRule = Extract<Rule, { type: "host" }>;

/** `pypi.org`, or `127.0.0.2:8080` for a rule with a port. */
export function hostRuleText(rule: { readonly host: string; readonly port?: number }): string {
  return rule.port === undefined ? rule.host : `${rule.host}:${rule.port}`;
}

/** True when one of `rules` allows `subject` (a rule without a port covers every port). */
export function coversHost(rules: readonly Rule[], subject: HostSubject): boolean {
  return rules.some(
    (rule) =>
      rule.type === "host" &&
      rule.host === subject.host &&
      (rule.port === undefined || rule.port === subject.port),
  );
}

/** The rule an "always allow" saves for `subject`. */
export function hostRuleOf(subject: HostSubject): HostRule {
  return {
    type: "host",
    host: subject.host,
    ...(subject.port === undefined ? {} : { port: subject.port }),
  };
}
