/**
 * The credential set: every place dsh knows to hold a secret, each with the reason it is
 * listed. The one list both the command sandbox (which hides each store) and the file tools
 * (which refuse to read, list or write them) use. Best effort: it covers the common stores,
 * not every secret a user may keep.
 */
import * as nodePath from "node:path";

/**
 * Where a store's relative path starts: home, the XDG config and data directories, dsh's state
 * directory, or Windows' roaming and local application data (`%APPDATA%`, `%LOCALAPPDATA%`).
 */
export type CredentialBase = "home" | "config" | "data" | "state" | "appData" | "localAppData";

/** One entry of the credential set. */
export interface CredentialEntry {
  /** `dir`: the whole tree is a store; `file`: the single file is. */
  readonly type: "dir" | "file";
  readonly base: CredentialBase;
  /** Relative to the base, `/`-separated. */
  readonly path: string;
  /** Why it is listed: what it holds. */
  readonly reason: string;
}

const home = (type: CredentialEntry["type"], path: string, reason: string): CredentialEntry => ({
  type,
  base: "home",
  path,
  reason,
});
const config = (type: CredentialEntry["type"], path: string, reason: string): CredentialEntry => ({
  type,
  base: "config",
  path,
  reason,
});
const data = (type: CredentialEntry["type"], path: string, reason: string): CredentialEntry => ({
  type,
  base: "data",
  path,
  reason,
});

const appData = (type: CredentialEntry["type"], path: string, reason: string): CredentialEntry => ({
  type,
  base: "appData",
  path,
  reason,
});
const localAppData = (
  type: CredentialEntry["type"],
  path: string,
  reason: string,
): CredentialEntry => ({ type, base: "localAppData", path, reason });

const HISTORY = "a shell or REPL history, which holds pasted keys and passwords";
const EDITOR_SETTINGS = "editor settings, where agent servers' env (DSH_API_KEY) is kept";
/** VS Code and its forks, which keep `User/settings.json` under the config directory. */
const CODE_EDITORS = ["Code", "Code - Insiders", "VSCodium", "Cursor"];

/**
 * The credential set. Directories come first, then files; `config` and `data` entries are
 * covered under both `~/.config` / `~/.local/share` and `$XDG_CONFIG_HOME` / `$XDG_DATA_HOME`
 * (tools disagree on whether they honour the variables).
 */
export const CREDENTIAL_ENTRIES: readonly CredentialEntry[] = [
  home("dir", ".ssh", "SSH private keys"),
  home("dir", ".aws", "AWS access keys and SSO tokens"),
  home("dir", ".azure", "Azure CLI tokens"),
  home("dir", ".kube", "Kubernetes cluster credentials"),
  home("dir", ".docker", "container registry logins (config.json)"),
  home("dir", ".gnupg", "GnuPG private keys"),
  home("dir", ".password-store", "pass, the password store"),
  home("dir", "Library/Keychains", "macOS keychains (their items, encrypted with your password)"),
  config("dir", "gcloud", "Google Cloud credentials"),
  config("dir", "gh", "GitHub CLI tokens (hosts.yml)"),
  config("dir", "github-copilot", "GitHub Copilot tokens"),
  data("dir", "keyrings", "the desktop keyring"),
  // Windows keeps these under %APPDATA% and %LOCALAPPDATA% instead.
  appData("dir", "GitHub CLI", "GitHub CLI tokens (hosts.yml)"),
  appData("dir", "gcloud", "Google Cloud credentials"),
  appData("dir", "gnupg", "GnuPG private keys"),
  localAppData("dir", "github-copilot", "GitHub Copilot tokens"),
  home("file", ".netrc", "logins for HTTP, FTP and git hosts"),
  home("file", ".npmrc", "npm registry tokens"),
  home("file", ".pypirc", "PyPI upload tokens"),
  home("file", ".git-credentials", "git's stored HTTPS credentials"),
  home("file", ".cargo/credentials.toml", "crates.io tokens"),
  home("file", ".cargo/credentials", "crates.io tokens (older name)"),
  home("file", ".vault-token", "a HashiCorp Vault token"),
  home("file", ".yarnrc.yml", "Yarn registry tokens"),
  home("file", ".m2/settings.xml", "Maven repository passwords"),
  home("file", ".terraform.d/credentials.tfrc.json", "Terraform Cloud tokens"),
  home("file", ".pgpass", "PostgreSQL passwords"),
  home("file", ".my.cnf", "MySQL client passwords"),
  home("file", ".codex/auth.json", "the Codex CLI's API key and tokens"),
  home("file", ".claude/.credentials.json", "Claude Code's OAuth tokens"),
  home("file", ".gemini/oauth_creds.json", "Gemini CLI's OAuth tokens"),
  config("file", "hub", "the hub CLI's GitHub token"),
  config("file", "git/credentials", "git's stored HTTPS credentials (XDG location)"),
  config("file", "containers/auth.json", "Podman and Buildah registry logins"),
  config("file", "rclone/rclone.conf", "rclone's cloud storage keys"),
  config("file", "zed/settings.json", EDITOR_SETTINGS),
  ...CODE_EDITORS.map((name) => config("file", `${name}/User/settings.json`, EDITOR_SETTINGS)),
  home("file", "Library/Application Support/Code/User/settings.json", EDITOR_SETTINGS),
  home("file", "Library/Application Support/Cursor/User/settings.json", EDITOR_SETTINGS),
  home("file", ".bash_history", HISTORY),
  home("file", ".zsh_history", HISTORY),
  home("file", ".zhistory", HISTORY),
  home("file", ".histfile", HISTORY),
  home("file", ".sh_history", HISTORY),
  home("file", ".history", HISTORY),
  home("file", ".python_history", HISTORY),
  home("file", ".node_repl_history", HISTORY),
  home("file", ".psql_history", HISTORY),
  home("file", ".mysql_history", HISTORY),
  home("file", ".sqlite_history", HISTORY),
  home("file", ".rediscli_history", HISTORY),
  home("file", ".dbshell", HISTORY),
  home("file", ".irb_history", HISTORY),
  data("file", "fish/fish_history", HISTORY),
  // Windows keeps these under %APPDATA% and %LOCALAPPDATA% instead.
  appData("file", "rclone/rclone.conf", "rclone's cloud storage keys"),
  appData("file", "Zed/settings.json", EDITOR_SETTINGS),
  ...CODE_EDITORS.map((name) => appData("file", `${name}/User/settings.json`, EDITOR_SETTINGS)),
  appData(
    "file",
    "Microsoft/Windows/PowerShell/PSReadLine/ConsoleHost_history.txt",
    "PowerShell's history, which holds pasted keys and passwords",
  ),
  appData("file", "pip/pip.ini", "pip's index URLs, which can carry tokens"),
  { type: "file", base: "state", path: "auth.json", reason: "dsh's own stored API key" },
];

/** The directories the credential set is relative to. */
export interface CredentialScope {
  /** The user's home directory. */
  readonly home: string;
  /** `$XDG_CONFIG_HOME` when set; `~/.config` is always covered. */
  readonly configHome?: string;
  /** `$XDG_DATA_HOME` when set; `~/.local/share` is always covered. */
  readonly dataHome?: string;
  /** dsh's state directory (`DSH_HOME`), which will hold the stored key. */
  readonly stateDir?: string;
  /** Windows' `%APPDATA%` (roaming application data), where it is set. */
  readonly appData?: string;
  /** Windows' `%LOCALAPPDATA%`, where it is set. */
  readonly localAppData?: string;
}

/** One store at an absolute path. */
export interface CredentialStore {
  readonly type: "dir" | "file";
  readonly path: string;
  readonly reason: string;
}

/** The path functions of one platform: `node:path`'s own, or `win32`/`posix` explicitly. */
export type PathFlavor = Pick<typeof nodePath, "isAbsolute" | "join" | "resolve">;

/**
 * Every store of the credential set as absolute paths under `scope`, directories first,
 * without duplicates (a `$XDG_CONFIG_HOME` equal to `~/.config` adds nothing). Paths are
 * lexical: nothing is looked up on disk. `paths` spells them (this platform's by default).
 */
export function credentialStores(
  scope: CredentialScope,
  paths: PathFlavor = nodePath,
): readonly CredentialStore[] {
  const { join } = paths;
  const unique = (list: readonly (string | undefined)[]) => uniqueAbsolute(list, paths);
  const bases: Record<CredentialBase, readonly string[]> = {
    home: [scope.home],
    config: unique([join(scope.home, ".config"), scope.configHome]),
    data: unique([join(scope.home, ".local", "share"), scope.dataHome]),
    state: unique([scope.stateDir]),
    appData: unique([scope.appData]),
    localAppData: unique([scope.localAppData]),
  };
  const stores: CredentialStore[] = [];
  const seen = new Set<string>();
  for (const entry of CREDENTIAL_ENTRIES) {
    for (const base of bases[entry.base]) {
      const path = join(base, ...entry.path.split("/"));
      if (seen.has(path)) continue;
      seen.add(path);
      stores.push({ type: entry.type, path, reason: entry.reason });
    }
  }
  return stores;
}

/** The absolute paths among `list`, normalised, once each (XDG ignores relative values). */
function uniqueAbsolute(list: readonly (string | undefined)[], paths: PathFlavor): string[] {
  const absolute = list.filter((p): p is string => p !== undefined && paths.isAbsolute(p));
  return [...new Set(absolute.map((p) => paths.resolve(p)))];
}
