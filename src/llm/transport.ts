/**
 * How dsh's own requests (the model endpoint, its probes) leave this machine on a corporate
 * network: through the proxy the environment names for the URL's scheme (`HTTPS_PROXY`,
 * `HTTP_PROXY`, either case), unless `NO_PROXY` lists the host; and trusting, beside the
 * system's roots, the certificates of `NODE_EXTRA_CA_CERTS` and `SSL_CERT_FILE`.
 */
import { readFileSync } from "node:fs";

/** The proxy a URL goes through, and which variable named it. */
export interface ProxyChoice {
  readonly url: string;
  readonly variable: string;
}

/** What `fetch` takes on top of the request: the proxy and the trusted CAs. */
export interface TransportOptions {
  readonly proxy?: string;
  readonly tls?: { readonly ca: string[] };
}

export interface Transport {
  /** The proxy `url` goes through, or undefined for a direct connection. */
  proxyFor(url: string): ProxyChoice | undefined;
  /** The extra CA files that are set, each with why it could not be read when it could not. */
  caFiles(): readonly {
    readonly variable: string;
    readonly path: string;
    readonly error?: string;
  }[];
  /** Options for a `fetch` of `url`. */
  options(url: string): Promise<TransportOptions>;
}

const CA_VARIABLES = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"] as const;

/** The transport the environment describes; files are read at the first request, once. */
export function createTransport(env: Readonly<Record<string, string | undefined>>): Transport {
  let extra:
    | { readonly files: ReturnType<Transport["caFiles"]>; readonly pems: string[] }
    | undefined;
  const loaded = () => {
    if (extra !== undefined) return extra;
    const files: { variable: string; path: string; error?: string }[] = [];
    const pems: string[] = [];
    for (const variable of CA_VARIABLES) {
      const path = env[variable]?.trim();
      if (path === undefined || path === "") continue;
      try {
        pems.push(readFileSync(path, "utf8"));
        files.push({ variable, path });
      } catch (error) {
        files.push({
          variable,
          path,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    extra = { files, pems };
    return extra;
  };
  const proxyFor = (url: string): ProxyChoice | undefined => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    const scheme = parsed.protocol === "https:" ? "https_proxy" : "http_proxy";
    const variable = [scheme, scheme.toUpperCase()].find(
      (name) => nonEmpty(env[name]) !== undefined,
    );
    if (variable === undefined) return undefined;
    const noProxy = nonEmpty(env.no_proxy) ?? nonEmpty(env.NO_PROXY);
    if (noProxy !== undefined && bypasses(noProxy, parsed)) return undefined;
    return { url: env[variable]?.trim() ?? "", variable };
  };
  return {
    proxyFor,
    caFiles: () => loaded().files,
    async options(url) {
      const proxy = proxyFor(url);
      const { pems } = loaded();
      // Given CAs replace the system's for the request, so the roots come along.
      const roots = pems.length === 0 ? [] : (await import("node:tls")).rootCertificates;
      return {
        ...(proxy === undefined ? {} : { proxy: proxy.url }),
        ...(pems.length === 0 ? {} : { tls: { ca: [...roots, ...pems] } }),
      };
    },
  };
}

/**
 * Whether `NO_PROXY` (comma- or space-separated) lists the URL's host: `*` lists every host; a
 * name (with or without a leading dot) lists itself and its subdomains; an address lists
 * itself; an entry with `:port` only that port.
 */
export function bypasses(noProxy: string, url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return noProxy
    .split(/[\s,]+/)
    .filter((entry) => entry !== "")
    .some((entry) => {
      if (entry === "*") return true;
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
      const [name, entryPort] =
        bracketed !== null
          ? [bracketed[1] ?? "", bracketed[2]]
          : entry.split(":").length === 2
            ? (entry.split(":") as [string, string])
            : [entry, undefined];
      if (entryPort !== undefined && entryPort !== port) return false;
      const bare = name.replace(/^\*?\./, "").toLowerCase();
      return host === bare || host.endsWith(`.${bare}`);
    });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** `fetch` with the transport's proxy and CAs added to every request. */
export function fetchThrough(transport: Transport): typeof fetch {
  const through = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return fetch(input, { ...(await transport.options(url)), ...init });
  };
  return Object.assign(through, { preconnect: fetch.preconnect });
}
