/**
 * `web_fetch`'s own fetching: every hop of a redirect chain is checked by the network access
 * the sandbox's proxy uses (the same host policy, the same question about a host no rule
 * allows, the same address rules), at most `MAX_REDIRECTS` redirects are followed, and each
 * connection goes only to the addresses that check returned. Time is bounded per call (the
 * wait for the user's answer not counted) and the body by `maxBytes`. Fetches never go through
 * the environment's `HTTPS_PROXY`: a proxy resolves names itself, past these checks; they do
 * trust the same extra CAs as the model endpoint's requests.
 */
import { describeFetchFailure } from "../llm/http-errors.ts";
import { type HostPort, parseHost } from "../network/host.ts";
import type { CommandAccess } from "../network/types.ts";
import { ACCEPTED_ENCODINGS, type GetResponse, getOnce } from "./http-request.ts";

/** Redirects followed before the fetch gives up. */
export const MAX_REDIRECTS = 5;

export interface DirectFetchRequest {
  readonly url: URL;
  /** This call's network access (its answers, its refusals); the caller closes it. */
  readonly access: CommandAccess;
  readonly maxBytes: number;
  /** Network time the whole chain may take. */
  readonly timeoutMs: number;
  readonly userAgent: string;
  /** The certificates HTTPS trusts, when extra CAs are set (`NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`). */
  readonly ca?: () => Promise<readonly string[] | undefined>;
  readonly signal: AbortSignal;
}

/** How a fetch ended. */
export type DirectFetch =
  | {
      readonly ok: true;
      readonly response: GetResponse;
      /** The URL that answered, after any redirects. */
      readonly finalUrl: string;
      readonly redirects: number;
    }
  | {
      readonly ok: false;
      readonly reason: "refused" | "timeout" | "cancelled" | "failed";
      readonly message: string;
    };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Fetches `request.url`, following redirects. Never throws. */
export async function directFetch(request: DirectFetchRequest): Promise<DirectFetch> {
  let url = request.url;
  let remainingMs = request.timeoutMs;
  for (let redirects = 0; ; redirects += 1) {
    const problem = urlProblem(url);
    if (problem !== undefined) {
      return fail(
        "refused",
        redirects === 0 ? problem : `${request.url.href} redirected to ${url.href}: ${problem}`,
      );
    }
    const target = targetOf(url);
    if (target === undefined) return fail("refused", `${url.hostname} is not a valid host name`);
    const reach = await request.access.reach(target, request.signal);
    if (request.signal.aborted) return fail("cancelled", "the fetch was cancelled");
    if (!reach.ok) {
      const where =
        redirects === 0 ? url.href : `${request.url.href} redirected to ${url.href}, which`;
      return fail("refused", `${where} was refused: ${reach.reason}`);
    }

    const ca = url.protocol === "https:" ? await request.ca?.() : undefined;
    const started = performance.now();
    const timer = AbortSignal.timeout(Math.max(1, remainingMs));
    let response: GetResponse;
    try {
      response = await getOnce({
        url,
        addresses: reach.addresses,
        headers: {
          "user-agent": request.userAgent,
          accept:
            "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5",
          "accept-encoding": ACCEPTED_ENCODINGS,
          host: url.host,
        },
        maxBytes: request.maxBytes,
        ...(ca === undefined ? {} : { ca }),
        signal: AbortSignal.any([request.signal, timer]),
      });
    } catch (error) {
      if (request.signal.aborted) return fail("cancelled", "the fetch was cancelled");
      if (timer.aborted) {
        return fail(
          "timeout",
          `${url.href} was not fetched within ${seconds(request.timeoutMs)} ([web] timeout)`,
        );
      }
      return fail("failed", `${url.href} could not be fetched: ${describeFetchFailure(error)}`);
    }
    remainingMs -= performance.now() - started;

    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || location === undefined) {
      return { ok: true, response, finalUrl: url.href, redirects };
    }
    if (redirects === MAX_REDIRECTS) {
      return fail(
        "failed",
        `${request.url.href} redirected more than ${MAX_REDIRECTS} times; the last hop was ${url.href}`,
      );
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return fail("failed", `${url.href} redirected to "${location}", which is not a URL`);
    }
    next.hash = "";
    url = next;
  }
}

/** The host and port `url` connects to; undefined when its host is no valid name or address. */
export function targetOf(url: URL): HostPort | undefined {
  const host = parseHost(url.hostname);
  if (host === undefined) return undefined;
  return {
    host,
    port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
  };
}

/** Why `url` is not fetched at all: not http(s), or credentials in it. */
export function urlProblem(url: URL): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `${url.protocol.slice(0, -1)}: URLs are not fetched; web_fetch reads http and https only`;
  }
  if (url.username !== "" || url.password !== "") {
    return "a URL with a user name or password in it is not fetched";
  }
  return undefined;
}

function fail(reason: Exclude<DirectFetch, { ok: true }>["reason"], message: string): DirectFetch {
  return { ok: false, reason, message };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
