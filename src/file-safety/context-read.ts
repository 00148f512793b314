/**
 * Reading a file into the model's context on dsh's own initiative: `AGENTS.md` files today,
 * resource links and embedded context from the editor. Whatever lands here reaches every
 * model request, so it passes the checks of `read_file` (secret places by path and by device
 * and inode, no symlink swapped in, no FIFO or device, a bounded read) and more: the resolved
 * file stays inside a given directory, lies on no kernel file system (`/proc`, `/sys`,
 * `/dev`), is whole (a file over the limit is refused, never cut), holds no NUL byte and is
 * UTF-8. A refusal is a value with its reason, for the caller to log.
 */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { errorMessage } from "../errors.ts";
import { isWithin } from "../paths.ts";
import { secretRefusal } from "./credential-paths.ts";
import type { SecretPlaces } from "./credential-paths.ts";
import { errorCode } from "../error-code.ts";
import { formatBytes, openRegularFile } from "./file-io.ts";
import { procFdAvailable } from "./opened-path.ts";
import { type SecretSnapshot, snapshotSecrets } from "./secret-identity.ts";
import { holdsPrivateKey, secretFileReason } from "../permission/secret-files.ts";

/**
 * Who asked for the file: dsh itself (`instructions`: AGENTS.md), or the user by naming it in
 * a prompt (`mention`), which may name a `.env` on purpose but not through a disguise.
 */
export type ContextOrigin = "instructions" | "mention";

/** One file to read into the model's context. */
export interface ContextReadRequest {
  /** The file, absolute: as discovered, or as the editor named it. */
  readonly path: string;
  /** The directory the file must resolve inside: the repository root, dsh's config dir. */
  readonly within: string;
  /** The largest file accepted, in bytes; a larger one is refused whole. */
  readonly maxBytes: number;
  /** What is never read: credential stores, dsh's state directory (see `secretPlacesOf`). */
  readonly secrets: SecretPlaces;
  /**
   * A snapshot of `secrets` the caller took for many reads in one go (a folder of skills);
   * taken afresh for this read when absent.
   */
  readonly snapshot?: SecretSnapshot;
  readonly origin: ContextOrigin;
  readonly signal: AbortSignal;
}

/** What became of a context read. */
export type ContextRead =
  /** The file's whole text; `real` is the file it resolved to. */
  | { readonly type: "text"; readonly path: string; readonly real: string; readonly text: string }
  /** Nothing at the path (or a directory on the way is missing): not a refusal. */
  | { readonly type: "missing"; readonly path: string }
  /**
   * The file exists and was not read; `reason` says why, for the log. `secret`: it is, or may
   * be, a file that holds secrets under a name that hides it (worth telling the user).
   */
  | {
      readonly type: "refused";
      readonly path: string;
      readonly reason: string;
      readonly secret?: true;
    };

/** Directories the kernel makes up: nothing in them is a user's text. */
const KERNEL_ROOTS = ["/proc", "/sys", "/dev"];

/** `statfs` magic numbers of kernel file systems, wherever they are mounted. */
const KERNEL_FS_TYPES: ReadonlySet<number> = new Set([
  0x9fa0, // proc
  0x62656572, // sysfs
  0x64626720, // debugfs
  0x74726163, // tracefs
  0x73636673, // securityfs
  0x63677270, // cgroup2
  0x27e0eb, // cgroup
  0x62656570, // configfs
  0xde5e81e4, // efivarfs
  0xcafe4a11, // bpf
  0x6e736673, // nsfs
]);

/** A context read of a file's bytes (an image the user attached), not its text. */
export type ContextBytesRead =
  | {
      readonly type: "bytes";
      readonly path: string;
      readonly real: string;
      readonly bytes: Uint8Array;
    }
  | Exclude<ContextRead, { type: "text" }>;

/**
 * Reads `request.path` into the model's context, or says why not. Never throws for what the
 * disk holds; rejects only with the signal's reason once it aborts.
 */
export async function readContextFile(request: ContextReadRequest): Promise<ContextRead> {
  const read = await readChecked(request);
  if (read.type !== "bytes") return read;
  const refused = (reason: string): ContextRead => ({ type: "refused", path: read.path, reason });
  if (read.bytes.includes(0)) return refused("it is binary (it holds NUL bytes)");
  const text = decodeStrict(read.bytes);
  if (text === undefined) return refused("it is not UTF-8 text");
  if (request.origin === "instructions" && holdsPrivateKey(text)) {
    return { type: "refused", path: read.path, reason: "it holds a private key", secret: true };
  }
  return { type: "text", path: read.path, real: read.real, text };
}

/**
 * Reads the bytes of `request.path` (an image, say) through the same checks as
 * `readContextFile`, without asking them to be text. Never throws for what the disk holds.
 */
export function readContextBytes(request: ContextReadRequest): Promise<ContextBytesRead> {
  return readChecked(request);
}

async function readChecked(request: ContextReadRequest): Promise<ContextBytesRead> {
  request.signal.throwIfAborted();
  const shown = request.path;
  const refused = (reason: string): ContextBytesRead => ({ type: "refused", path: shown, reason });
  if (!path.isAbsolute(shown) || shown.includes("\0")) {
    return refused("the path is not absolute, or holds a NUL byte");
  }
  let real: string;
  try {
    real = await fsp.realpath(shown);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      return isSymlink(shown)
        ? refused("it is a symlink to nothing")
        : { type: "missing", path: shown };
    }
    return refused(`it cannot be resolved: ${errorMessage(error)}`);
  }
  const secrets = request.snapshot ?? snapshotSecrets(request.secrets);
  const secret = secrets.match(shown) ?? secrets.match(real);
  if (secret !== undefined) return refused(secretRefusal(shown, secret, "read"));
  const kernel = KERNEL_ROOTS.find((root) => isWithin(root, real));
  if (kernel !== undefined) return refused(`it resolves to ${real}, on the kernel's ${kernel}`);
  const within = await fsp.realpath(request.within).catch(() => path.resolve(request.within));
  if (!isWithin(within, real)) return refused(`it resolves to ${real}, outside ${within}`);
  const hiding = (reason: string): ContextBytesRead => ({
    type: "refused",
    path: shown,
    reason,
    secret: true,
  });
  const disguise = disguisedSecret(shown, real, within, request.origin);
  if (disguise !== undefined) return hiding(disguise);
  try {
    await using file = await openRegularFile(real, shown, { secrets, within });
    const fsType = kernelFileSystem(file.fd);
    if (fsType !== undefined) return refused(`it lies on a kernel file system (${fsType})`);
    const links = fs.fstatSync(file.fd).nlink;
    if (links > 1) return hiding(hardLinked(links));
    if (file.size > request.maxBytes) {
      return refused(
        `it is ${formatBytes(file.size)} (${file.size} bytes), over the ${formatBytes(request.maxBytes)} limit`,
      );
    }
    request.signal.throwIfAborted();
    const { bytes, complete } = await file.read(request.maxBytes);
    if (!complete) return refused(`it holds more than ${formatBytes(request.maxBytes)}, the limit`);
    return { type: "bytes", path: shown, real, bytes };
  } catch (error) {
    request.signal.throwIfAborted();
    return refused(errorMessage(error));
  }
}

/**
 * Why the file `shown` names, resolved to `real` inside `within`, is one that holds secrets
 * under a name that hides it, or undefined. A prompt may name a secret file itself (the user's
 * choice), not one behind a link with another name (`notes.md -> .env`,
 * `.env.example -> .env`, `docs -> .git`); dsh's own reads never take one.
 */
export function disguisedSecret(
  shown: string,
  real: string,
  within: string,
  origin: ContextOrigin,
): string | undefined {
  const reason = secretFileReason(real, within);
  if (reason === undefined) return undefined;
  const named =
    origin === "mention" &&
    path.basename(shown) === path.basename(real) &&
    secretFileReason(shown) !== undefined;
  return named ? undefined : `it leads to ${real}, ${reason}`;
}

/** Why a file with several hard links is not read on dsh's own initiative. */
export function hardLinked(links: number): string {
  return `it has ${links} hard links, so it may be a file that holds secrets under another name`;
}

/** The kernel file system an open file lies on, as a hex magic, or undefined. */
function kernelFileSystem(fd: number): string | undefined {
  if (!procFdAvailable) return undefined;
  try {
    const { type } = fs.statfsSync(`/proc/self/fd/${fd}`);
    return KERNEL_FS_TYPES.has(type) ? `0x${type.toString(16)}` : undefined;
  } catch {
    return undefined;
  }
}

function isSymlink(target: string): boolean {
  try {
    return fs.lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  } catch {
    return false;
  }
}

function decodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
