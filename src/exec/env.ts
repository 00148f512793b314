/**
 * The environment a command sees: an allowlist of the parent's variables, minus anything
 * shaped like a credential, plus a few variables dsh sets itself (sandbox.md §3.6). dsh's
 * own API keys never pass, whatever the configuration says.
 */
import * as v from "valibot";
import type { SandboxBackend } from "../settings/table.ts";

/** The `[env]` table of the config file. */
export const EnvConfig = v.object({
  /** Extra names or globs (`*` matches any run of characters) to pass through. */
  include: v.optional(v.array(v.string()), []),
  /** Exact names to pass even though they look like credentials. */
  allow_secret: v.optional(v.array(v.string()), []),
});
export type EnvConfig = v.InferOutput<typeof EnvConfig>;

export interface ScrubOptions {
  /** Names or globs added to the allowlist (matched case-sensitively, like the OS). */
  readonly include?: readonly string[];
  /** Exact names passed through even though they look like credentials (implies include). */
  readonly allowSecret?: readonly string[];
  /** `bwrap`, `seatbelt`, or `none` for an unsandboxed command; exported as `DSH_SANDBOX`. */
  readonly backend: SandboxBackend;
  /** HOME for the child (the user's home directory). */
  readonly home: string;
  /** The command's working directory, exported as `PWD`. */
  readonly cwd: string;
  /**
   * The port of dsh's proxy on the command's `127.0.0.1`: the proxy variables then point there
   * (whatever the parent had), with `NO_PROXY` for the command's own loopback.
   */
  readonly proxyPort?: number;
  /**
   * Windows: names are matched without regard to case (Windows keeps `Path`, not `PATH`), and
   * what Windows programs cannot start without (`SystemRoot`, `ComSpec`, ...) is kept too.
   */
  readonly windows?: boolean;
}

export interface ScrubbedEnv {
  readonly env: Record<string, string>;
  /** Names the parent had that the child does not get (never their values). */
  readonly removed: readonly string[];
}

const ALLOWED = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "COLORTERM",
  "NO_COLOR",
  "TMPDIR",
  "JAVA_HOME",
  "GOPATH",
  "GOROOT",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "NVM_DIR",
  "PYENV_ROOT",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "GEM_HOME",
  "BUN_INSTALL",
  "PNPM_HOME",
  "XDG_*_HOME",
  "XDG_RUNTIME_DIR",
  // Trust stores and proxies: without them package managers fail TLS behind a corporate proxy
  // (a proxy URL that carries credentials is still dropped by the value check).
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
];

/** What Windows programs need to start and find their files, kept on Windows only. */
const WINDOWS_ALLOWED = [
  "PATHEXT",
  "SystemRoot",
  "SystemDrive",
  "windir",
  "ComSpec",
  "TEMP",
  "TMP",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  "ProgramFiles",
  "ProgramFiles(x86)",
  "ProgramW6432",
  "CommonProgramFiles",
  "CommonProgramFiles(x86)",
  "CommonProgramW6432",
  "ALLUSERSPROFILE",
  "PUBLIC",
  "USERNAME",
  "USERDOMAIN",
  "COMPUTERNAME",
  "OS",
  "PROCESSOR_ARCHITECTURE",
  "PROCESSOR_IDENTIFIER",
  "NUMBER_OF_PROCESSORS",
];

const DENIED = [
  "*KEY*",
  "*SECRET*",
  "*TOKEN*",
  "*PASSWORD*",
  "*PASSWD*",
  "*CREDENTIAL*",
  "*PRIVATE*",
  "*AUTH*",
  "*SESSION*",
  "*COOKIE*",
  "*_PAT",
  "AWS_*",
  "AZURE_*",
  "ARM_*",
  "GOOGLE_*",
  "GCLOUD_*",
  "CLOUDSDK_*",
  "GH_*",
  "GITHUB_*",
  "GITLAB_*",
  "NPM_CONFIG_*",
  "YARN_*AUTH*",
  "DOCKER_*",
  "KUBECONFIG",
  "VAULT_*",
  "OP_*",
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "DBUS_SESSION_BUS_ADDRESS",
  "BASH_ENV",
  "ENV",
  "PROMPT_COMMAND",
  "LD_PRELOAD",
  "LD_AUDIT",
  "DYLD_*",
];

/** Set for every child, whatever the parent had. */
const SET_BY_DSH = new Set(["HOME", "PWD", "TMPDIR", "TERM", "PAGER", "GIT_PAGER", "DSH_SANDBOX"]);

/** dsh's own provider credentials: no option lets them through. */
const NEVER = new Set(["DSH_API_KEY", "DEEPSEEK_API_KEY"]);

/** True for dsh's own provider credentials, which no child process ever gets. */
export function isDshCredential(name: string): boolean {
  return NEVER.has(name.toUpperCase());
}

/** `scheme://user@` or `scheme://user:pass@` anywhere in a value. */
const URL_USERINFO = /[a-z][a-z0-9+.-]*:\/\/[^/?#\s@]+@/i;
/** `user:pass@host` without a scheme, as proxies accept (`https_proxy=user:pw@proxy:3128`). */
const BARE_USERINFO = /^[^/\s@:]+:[^@\s]*@/;

interface NamePatterns {
  readonly allowed: RegExp[];
  readonly windowsAllowed: RegExp[];
  readonly denied: RegExp[];
}

let namePatterns: NamePatterns | undefined;
/** Compiled at first use: `dsh acp` loads this module for the config, long before any command. */
function patterns(): NamePatterns {
  namePatterns ??= {
    allowed: ALLOWED.map((glob) => globToRegExp(glob, false)),
    windowsAllowed: [...ALLOWED, ...WINDOWS_ALLOWED].map((glob) => globToRegExp(glob, true)),
    denied: DENIED.map((glob) => globToRegExp(glob, true)),
  };
  return namePatterns;
}

/** True when a variable's name or value looks like a credential. */
function looksSecret(name: string, value: string): boolean {
  return (
    patterns().denied.some((re) => re.test(name)) ||
    URL_USERINFO.test(value) ||
    BARE_USERINFO.test(value)
  );
}

/**
 * Builds the child environment from the parent's. Pure: reads nothing but its arguments.
 * Sandboxed children lose `XDG_RUNTIME_DIR` (its sockets lead out of the sandbox) and get
 * `TMPDIR=/tmp`; every child gets `TERM=dumb`, `PAGER=cat`, `GIT_PAGER=cat`.
 */
export function scrubEnv(
  parent: Readonly<Record<string, string | undefined>>,
  options: ScrubOptions,
): ScrubbedEnv {
  const windows = options.windows === true;
  const included = (options.include ?? []).map((glob) => globToRegExp(glob, windows));
  const allowed = windows ? patterns().windowsAllowed : patterns().allowed;
  const allowSecret = new Set(options.allowSecret ?? []);
  const sandboxed = options.backend !== "none";
  const env: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const listed =
      allowSecret.has(name) ||
      allowed.some((re) => re.test(name)) ||
      included.some((re) => re.test(name));
    const secret =
      NEVER.has(name.toUpperCase()) || (!allowSecret.has(name) && looksSecret(name, value));
    const runtimeDir = sandboxed && name === "XDG_RUNTIME_DIR";
    if (!listed || secret || runtimeDir) {
      if (!SET_BY_DSH.has(name)) removed.push(name);
      continue;
    }
    env[name] = value;
  }
  env.HOME = options.home;
  env.PWD = options.cwd;
  if (sandboxed) env.TMPDIR = "/tmp";
  env.TERM = "dumb";
  env.PAGER = "cat";
  env.GIT_PAGER = "cat";
  env.DSH_SANDBOX = options.backend;
  if (options.proxyPort !== undefined) Object.assign(env, proxyVariables(options.proxyPort));
  return { env, removed: removed.sort() };
}

/** `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` (SOCKS5, names resolved by the proxy), `NO_PROXY`. */
function proxyVariables(port: number): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const socks = `socks5h://127.0.0.1:${port}`;
  const local = "localhost,127.0.0.1";
  const variables: Record<string, string> = {};
  for (const [name, value] of [
    ["HTTP_PROXY", http],
    ["HTTPS_PROXY", http],
    ["ALL_PROXY", socks],
    ["NO_PROXY", local],
  ] as const) {
    variables[name] = value;
    variables[name.toLowerCase()] = value;
  }
  return variables;
}

function globToRegExp(glob: string, ignoreCase: boolean): RegExp {
  const body = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${body}$`, ignoreCase ? "i" : "");
}
