/**
 * Contracts of the network module: who a connection is made for, how the user is asked about
 * a host, and what a check of one destination returns. The proxy of sandboxed commands and any
 * tool that fetches a URL share them: both ask `NetworkAccess` before they connect, and both
 * connect to exactly the addresses it returns.
 */
import type { IpAddress } from "./address.ts";
import type { HostPort } from "./host.ts";

/** One question about a host, asked for a command (or a fetch). */
export interface HostQuestion {
  readonly target: HostPort;
  /** What an "always allow" would save: a host name (any port), or an address with its port. */
  readonly rule: { readonly host: string; readonly port?: number };
  /** Why it is special, when it is an address that is not public ("a loopback address ..."). */
  readonly note?: string;
}

/** How a question ended: `refused` means the approval policy never asks (nobody was asked). */
export type HostAnswer = "allow" | "deny" | "refused";

/** On whose behalf connections are made, and how to ask the user about a host. */
export interface NetworkRequester {
  /** The session the command belongs to; its allowed hosts are listed by `/status`. */
  readonly sessionId?: string;
  /** What a question and a refusal name: the command's text, or the URL fetched. */
  readonly label: string;
  /** The project whose saved host rules apply; none apply without one. */
  readonly project?: string;
  /**
   * Asks the user whether `question.target` may be reached. Never throws; an "always allow"
   * is saved by whoever asks (the approval seam) and answered here as `allow`.
   */
  ask(question: HostQuestion, signal: AbortSignal): Promise<HostAnswer>;
}

/** Why a destination was refused; the proxy maps it to its protocol's reply. */
export type RefusalKind =
  /** `[network] deny` lists it. */
  | "denied"
  /** Not allowed, and the user said no or nobody could be asked. */
  | "not_allowed"
  /** It is, or resolves to, an address that is not public and not allowed itself. */
  | "address"
  /** The name does not resolve. */
  | "unresolved"
  /** Not a host name or IP address at all. */
  | "invalid";

/** The outcome of checking one destination. */
export type Reach =
  /** Connect to these addresses (in order, each checked) on `target.port`, and only to them. */
  | { readonly ok: true; readonly target: HostPort; readonly addresses: readonly IpAddress[] }
  | { readonly ok: false; readonly kind: RefusalKind; readonly reason: string };

/** The network of one command (or one fetch): its answers, its refusals, its pending questions. */
export interface CommandAccess {
  /**
   * Checks `target` against the policy, the saved rules and this command's answers, asks the
   * user when none decides (one question per host, shared by concurrent connections), then
   * resolves a name and checks every address. Never throws.
   */
  reach(target: HostPort, signal: AbortSignal): Promise<Reach>;
  /** One line per refused host, for the command's result; empty when nothing was refused. */
  notes(): string[];
  /** Ends pending questions (answered as a deny); later checks refuse. */
  close(): void;
}

/** What `/status` lists: the hosts a session's commands may reach. */
export interface AllowedHosts {
  /** `[network] allow`, as written. */
  readonly config: readonly string[];
  /** Host rules saved for the project by "always allow". */
  readonly saved: readonly string[];
  /** Hosts the user allowed once for one of this session's commands. */
  readonly once: readonly string[];
}

export interface NetworkAccess {
  /** The access of one command; `close` it when the command has ended. */
  forRequester(requester: NetworkRequester): CommandAccess;
  allowedHosts(sessionId: string, project: string): AllowedHosts;
}
