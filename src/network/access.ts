/**
 * The decision about one destination, for the proxy and for any tool that fetches a URL:
 *
 * 1. `[network] deny` refuses at once (deny wins over allow).
 * 2. `[network] allow`, the project's saved host rules, and this command's earlier answers
 *    allow; otherwise the user is asked, once per host and command (concurrent connections
 *    share the question and its answer). A name is never resolved before it is allowed, so an
 *    unapproved name does not even reach a DNS server.
 * 3. A name is resolved here; every address (and an IP literal itself) that is not public is
 *    dropped unless that address is allowed by address (in `allow`, a saved rule or an answer
 *    about it); an address `deny` lists is dropped too. The caller connects to exactly the
 *    addresses returned, so nothing can change between the check and the connect.
 */
import {
  type IpAddress,
  classify,
  describeClass,
  effectiveAddress,
  parseIpLiteral,
} from "./address.ts";
import { type HostPort, hostPortText, hostText } from "./host.ts";
import { type HostPattern, patternText } from "./host-pattern.ts";
import { type HostPolicy, matchingPattern, patternNamingAddress } from "./policy.ts";
import type {
  AllowedHosts,
  CommandAccess,
  HostAnswer,
  HostQuestion,
  NetworkAccess,
  NetworkRequester,
  Reach,
  RefusalKind,
} from "./types.ts";

export interface NetworkAccessDeps {
  readonly policy: HostPolicy;
  /** The host rules saved for a project ("always allow"); read at each decision. */
  readonly savedHosts: (project: string) => readonly HostPattern[];
  /** Every address of a name, in the resolver's order; rejects when it does not resolve. */
  readonly resolve: (name: string) => Promise<readonly IpAddress[]>;
  /** Where the config lives, for refusal messages (`[network] deny in ~/.config/dsh/config.toml`). */
  readonly configPath?: string;
}

/** Creates the access; it holds no resource of its own. */
export function createNetworkAccess(deps: NetworkAccessDeps): NetworkAccess {
  // Hosts allowed once, per session, for `/status`.
  const once = new Map<string, Set<string>>();
  const configName = deps.configPath === undefined ? "the config" : deps.configPath;

  return {
    forRequester(requester) {
      return commandAccess(deps, requester, configName, (host) => {
        if (requester.sessionId === undefined) return;
        let hosts = once.get(requester.sessionId);
        if (hosts === undefined) {
          hosts = new Set();
          once.set(requester.sessionId, hosts);
        }
        hosts.add(host);
      });
    },
    allowedHosts(sessionId, project): AllowedHosts {
      return {
        config: deps.policy.allow.map(patternText),
        saved: deps.savedHosts(project).map(patternText),
        once: [...(once.get(sessionId) ?? [])],
      };
    },
  };
}

/**
 * An allowed destination; `itself` when what allowed it (a saved rule, an answer) named this
 * very host, which for an address literal allows that address even if it is not public.
 */
type Verdict = { readonly allowed: true; readonly itself: boolean } | Refusal;

interface Refusal {
  readonly allowed: false;
  readonly kind: RefusalKind;
  readonly reason: string;
}

function commandAccess(
  deps: NetworkAccessDeps,
  requester: NetworkRequester,
  configName: string,
  allowedOnce: (host: string) => void,
): CommandAccess {
  const closing = new AbortController();
  // One answer per host for the command's whole run, shared by concurrent connections.
  const answers = new Map<string, Promise<HostAnswer>>();
  const refusals = new Map<string, string>();
  const refuse = (target: HostPort | undefined, kind: RefusalKind, reason: string): Reach => {
    const where = target === undefined ? "a destination" : hostPortText(target);
    if (!refusals.has(where)) refusals.set(where, reason);
    return { ok: false, kind, reason };
  };

  const saved = (): readonly HostPattern[] =>
    requester.project === undefined ? [] : deps.savedHosts(requester.project);

  const decide = async (target: HostPort, signal: AbortSignal): Promise<Verdict> => {
    const { host, port } = target;
    const denied = matchingPattern(deps.policy.deny, host, port);
    if (denied !== undefined) {
      return refusal(
        "denied",
        `${hostText(host)} is denied by [network] deny ("${patternText(denied)}") in ${configName}`,
      );
    }
    if (matchingPattern(deps.policy.allow, host, port) !== undefined) {
      return { allowed: true, itself: false };
    }
    if (matchingPattern(saved(), host, port) !== undefined) return { allowed: true, itself: true };
    const question = questionFor(target);
    const key = `${question.rule.host}:${question.rule.port ?? "*"}`;
    let answer = answers.get(key);
    if (answer === undefined) {
      // The question belongs to the command, not to the connection that raised it: others
      // wait for the same answer, so only the command's end cancels it.
      answer = closing.signal.aborted
        ? Promise.resolve<HostAnswer>("deny")
        : requester.ask(question, closing.signal).catch((): HostAnswer => "deny");
      answers.set(key, answer);
    }
    const outcome = await untilAborted(answer, signal);
    if (outcome === "allow") {
      allowedOnce(hostPortText(target));
      return { allowed: true, itself: true };
    }
    const why =
      outcome === "refused"
        ? "the approval policy never asks, and neither [network] allow nor a saved rule lists it"
        : "[network] allow does not list it, and the user did not allow it (or nobody could be asked)";
    return refusal("not_allowed", `${hostPortText(target)} is not allowed: ${why}`);
  };

  const addressesOf = async (
    target: HostPort,
    itself: boolean,
  ): Promise<{ readonly allowed: true; readonly addresses: readonly IpAddress[] } | Refusal> => {
    const { host, port } = target;
    if (host.kind === "address") {
      const problem = addressProblem(host.address, port, itself);
      return problem === undefined
        ? { allowed: true, addresses: [host.address] }
        : refusal("address", `${hostText(host)} is ${problem}`);
    }
    let resolved: readonly IpAddress[];
    try {
      resolved = await deps.resolve(host.name);
    } catch {
      return refusal("unresolved", `${host.name} does not resolve to any address`);
    }
    const problems: string[] = [];
    const usable = resolved.filter((address) => {
      const problem = addressProblem(address, port, false);
      if (problem !== undefined) problems.push(`${address.text}, ${problem}`);
      return problem === undefined;
    });
    if (usable.length > 0) return { allowed: true, addresses: usable };
    if (problems.length === 0) return refusal("unresolved", `${host.name} resolves to no address`);
    return refusal(
      "address",
      `${host.name} resolves to ${problems.join("; ")}; a name that resolves there is refused ` +
        "unless that address itself is allowed",
    );
  };

  /** Why `address` may not be reached (`allowed`: it was allowed itself), or undefined. */
  const addressProblem = (
    address: IpAddress,
    port: number,
    allowed: boolean,
  ): string | undefined => {
    const effective = effectiveAddress(address);
    const denied = patternNamingAddress(deps.policy.deny, effective, port);
    if (denied !== undefined) return `denied by [network] deny ("${patternText(denied)}")`;
    const kind = classify(effective);
    if (kind === "public") return undefined;
    const named =
      allowed ||
      patternNamingAddress(deps.policy.allow, effective, port) !== undefined ||
      patternNamingAddress(saved(), effective, port) !== undefined;
    return named
      ? undefined
      : `${describeClass(kind)}, which is reached only when allowed by address`;
  };

  return {
    async reach(target, signal) {
      if (closing.signal.aborted) return refuse(target, "not_allowed", "the command has ended");
      const verdict = await decide(target, signal);
      if (!verdict.allowed) return refuse(target, verdict.kind, verdict.reason);
      const found = await addressesOf(target, verdict.itself);
      if (!found.allowed) return refuse(target, found.kind, found.reason);
      return { ok: true, target, addresses: found.addresses };
    },
    notes() {
      return [...refusals].map(
        ([where, reason]) => `[network: the proxy refused ${where}: ${reason}]`,
      );
    },
    close() {
      closing.abort();
    },
  };
}

/** The answer, or a deny once `signal` aborts first (this connection no longer waits). */
function untilAborted(answer: Promise<HostAnswer>, signal: AbortSignal): Promise<HostAnswer> {
  if (signal.aborted) return Promise.resolve("deny");
  const aborted = Promise.withResolvers<HostAnswer>();
  const onAbort = () => aborted.resolve("deny");
  signal.addEventListener("abort", onAbort, { once: true });
  return Promise.race([answer, aborted.promise]).finally(() =>
    signal.removeEventListener("abort", onAbort),
  );
}

function refusal(kind: RefusalKind, reason: string): Refusal {
  return { allowed: false, kind, reason };
}

/** The question for `target`: a name is asked about on every port, an address on its own. */
function questionFor(target: HostPort): HostQuestion {
  const { host, port } = target;
  if (host.kind === "name") return { target, rule: { host: host.name } };
  const kind = classify(host.address);
  return {
    target,
    rule: { host: hostText(host), port },
    ...(kind === "public" ? {} : { note: `${hostText(host)} is ${describeClass(kind)}` }),
  };
}

/** The addresses of `name` from the system resolver (hosts file included), in its order. */
export async function systemResolve(name: string): Promise<IpAddress[]> {
  const { lookup } = await import("node:dns/promises");
  const found = await lookup(name, { all: true, verbatim: true });
  return found.flatMap((entry) => {
    const address = parseIpLiteral(entry.address);
    return address === undefined ? [] : [address];
  });
}
