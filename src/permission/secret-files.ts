/**
 * Files that hold secrets by what they are called or where they lie, wherever they are (the
 * credential set names the stores under home; these are the ones a project keeps): `.env`
 * files, private keys, the usual token files, and git's own files, whose config keeps remote
 * URLs with tokens in them. dsh never reads one into the model's context on its own through
 * a name that disguises it (`AGENTS.md -> .env`).
 */
import { basename, dirname, extname, sep } from "node:path";
import { openGitDirectory } from "./git-repository.ts";

/** Token files a project may hold (the home ones are in the credential set too). */
const TOKEN_FILES: ReadonlySet<string> = new Set([
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
  ".my.cnf",
  ".vault-token",
  ".dockercfg",
  "credentials",
  "credentials.json",
]);

/** Extensions of key and keystore files. */
const KEY_EXTENSIONS: ReadonlySet<string> = new Set([
  ".pem",
  ".key",
  ".p12",
  ".pfx",
  ".jks",
  ".keystore",
  ".ppk",
]);

/** OpenSSH's private key names (`id_rsa`, `id_ed25519_sk`, ...). */
const SSH_KEY = /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/;

const GIT_FILE = "one of git's own files (a remote URL in its config can carry a token)";

/** A PEM or OpenSSH private key block in a text. */
const PRIVATE_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * What the file at `path` (absolute, symlinks resolved) is, when its name or place says it
 * holds secrets ("a .env file, which usually holds secrets"), or undefined. Looks at the disk only to tell whether a directory above it (up to `within`) is
 * a git directory that is not named `.git` (a bare repository, a worktree's git directory).
 */
export function secretFileReason(path: string, within?: string): string | undefined {
  const name = basename(path).toLowerCase();
  if (path.split(sep).includes(".git")) {
    return GIT_FILE;
  }
  if (name.startsWith(".env")) return "a .env file, which usually holds secrets";
  if (TOKEN_FILES.has(name)) return `a ${name} file, which usually holds tokens`;
  if (SSH_KEY.test(name) || KEY_EXTENSIONS.has(extname(name))) {
    return "a private key or keystore file";
  }
  if (within !== undefined && insideGitDirectory(path, within)) return GIT_FILE;
  return undefined;
}

/** Whether `text` holds a private key. */
export function holdsPrivateKey(text: string): boolean {
  return PRIVATE_KEY_BLOCK.test(text);
}

/** Whether a directory between `path` and `within` (both included) is a git directory. */
function insideGitDirectory(path: string, within: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (openGitDirectory(dir) !== undefined) return true;
    if (dir === within || dirname(dir) === dir) return false;
  }
}
