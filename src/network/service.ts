/**
 * The network of sandboxed commands as the rest of dsh sees it: cheap to create (nothing
 * listens and no heavy module loads until the first sandboxed command), one proxy per process
 * after that, and the same access for any tool that fetches a URL.
 */
import { join } from "node:path";
import type { Logger } from "../log.ts";
import { createNetworkAccess, systemResolve } from "./access.ts";
import type { NetworkConfig } from "./config.ts";
import type { NetworkHolders } from "./holder.ts";
import type { Namespaces } from "./namespace.ts";
import { hostPolicyOf, patternsOf } from "./policy.ts";
import type { CommandNetwork, CommandProxy } from "./proxy.ts";
import type { AllowedHosts, NetworkAccess, NetworkRequester } from "./types.ts";

export type { CommandNetwork } from "./proxy.ts";
export type { SandboxAttach } from "./sandbox-link.ts";

/** Where a command runs, which decides how it reaches the proxy. */
export type SandboxKind = "bwrap" | "seatbelt";

export interface NetworkService extends AsyncDisposable {
  /** Opens one sandboxed command's network; without a requester, unknown hosts are refused. */
  open(
    requester: NetworkRequester | undefined,
    sandbox: SandboxKind,
    scope?: string,
  ): Promise<CommandNetwork>;
  /**
   * Ends a session's network: on Linux a session's commands share one namespace (one dsh makes
   * as root, else one a holder process keeps), so a server one started in the background is
   * reached by the next.
   */
  endScope(scope: string): void;
  /** The access the proxy uses, for a tool that fetches URLs itself. */
  readonly access: NetworkAccess;
  allowedHosts(sessionId: string, project: string): AllowedHosts;
}

export interface NetworkServiceDeps {
  readonly config: NetworkConfig | undefined;
  /** The config file, named in refusals of `[network] deny`. */
  readonly configPath?: string;
  /** Host rules saved for a project by "always allow", each as `host` or `host:port`. */
  readonly savedHosts: (project: string) => readonly string[];
  readonly logger: Logger;
  /** How to run dsh's bridge (its executable, and its entry when run from source). */
  readonly selfArgv?: readonly string[];
  /** Whether dsh may make namespaces itself; found out at first use when absent. */
  readonly namespaces?: "auto" | "never";
  /**
   * Makes the holders of sessions' namespaces for bridged commands (asked once, at the first
   * bridged command of a session); without it, each bridged command gets its own namespace.
   */
  readonly holders?: () => Promise<NetworkHolders | undefined>;
  /** Resolves host names; the system resolver when absent. */
  readonly resolve?: (name: string) => ReturnType<typeof systemResolve>;
}

const NOBODY: Omit<NetworkRequester, "label"> = { ask: async () => "refused" };

export function createNetworkService(deps: NetworkServiceDeps): NetworkService {
  const access = createNetworkAccess({
    policy: hostPolicyOf(deps.config),
    savedHosts: (project) => patternsOf(deps.savedHosts(project)),
    resolve: deps.resolve ?? systemResolve,
    configPath: deps.configPath,
  });
  let proxy: Promise<CommandProxy> | undefined;
  let namespaces: Promise<Namespaces | undefined> | undefined;
  const findNamespaces = () => {
    namespaces ??=
      deps.namespaces === "never"
        ? Promise.resolve(undefined)
        : import("./namespace.ts").then((module) => module.openNamespaces());
    return namespaces;
  };
  let holders: Promise<NetworkHolders | undefined> | undefined;
  const findHolders = () => {
    holders ??= deps.holders?.() ?? Promise.resolve(undefined);
    return holders;
  };
  const start = () => {
    proxy ??= Promise.all([import("./proxy.ts"), import("./links.ts")]).then(([p, l]) =>
      p.createProxy({
        access,
        logger: deps.logger,
        listeners: l.createListenerMaker({
          namespaces: findNamespaces,
          selfArgv: deps.selfArgv ?? selfArgv(),
          holders: findHolders,
        }),
      }),
    );
    return proxy;
  };
  return {
    access,
    async open(requester, sandbox, scope) {
      const running = await start();
      const who = requester ?? { ...NOBODY, label: "a command" };
      if (sandbox === "seatbelt") return running.open(who, "port");
      const kind = (await findNamespaces()) === undefined ? "bridge" : "namespace";
      return running.open(who, kind, scope);
    },
    endScope(scope) {
      void proxy?.then((running) => running.endScope(scope));
    },
    allowedHosts: (sessionId, project) => access.allowedHosts(sessionId, project),
    async [Symbol.asyncDispose]() {
      if (proxy !== undefined) (await proxy).dispose();
    },
  };
}

/**
 * dsh's own command line: the executable, or, from source, Bun with the entry script (reading
 * no `.env` or `bunfig.toml` of the project it runs in, like the entry's shebang).
 */
function selfArgv(): string[] {
  if (import.meta.dir.startsWith("/$bunfs/")) return [process.execPath];
  const entry = join(import.meta.dir, "..", "..", "index.ts");
  return [process.execPath, "--no-env-file", "--config=/dev/null", entry];
}
