/** The checks a session's working directory must pass before any agent is built. */
// `node:fs` is linked at the first check, so `dsh acp` does not link it before its first
// message.
import { isAbsolute, resolve } from "node:path";
import { errorCode } from "../error-code.ts";
import { InvalidInputError, quoted } from "../errors.ts";
import { nodeFs } from "../lazy-builtins.ts";

/**
 * Resolves when `cwd` is an absolute path to an existing directory; InvalidInputError otherwise,
 * with a message that says what is wrong.
 */
export async function checkCwd(cwd: string): Promise<void> {
  await checkedCwdRoot(cwd);
}

/** `checkCwd`, resolving with the directory's real path. */
export async function checkedCwdRoot(cwd: string): Promise<string> {
  checkCwdText(cwd);
  // Side by side: one wait for the thread pool rather than two, before the first answer.
  const [stat, real] = await Promise.allSettled([
    nodeFs().promises.stat(cwd),
    nodeFs().promises.realpath(cwd),
  ]);
  if (stat.status === "rejected") throw unusable(`cwd ${whyNot(stat.reason)}`, cwd);
  if (!stat.value.isDirectory()) throw unusable("cwd is not a directory", cwd);
  if (real.status === "rejected") throw unusable(`cwd ${whyNot(real.reason)}`, cwd);
  checkNotKernel(real.value, cwd);
  return real.value;
}

/**
 * Resolves when `wanted` names the directory a session was created in (`logged`, as the log
 * header has it): both are compared as real paths, so a session opened through a symlinked
 * directory is found again through its target and the other way round. InvalidInputError
 * otherwise. The one check for a live session and a reopened one alike.
 */
export async function checkSameCwd(
  sessionId: string,
  logged: string,
  wanted: string,
): Promise<void> {
  const [real, asked] = await Promise.all([canonical(logged), canonical(wanted)]);
  if (real === asked) return;
  throw new InvalidInputError(`session ${sessionId} belongs to ${logged}, not ${wanted}`, {
    sessionId,
    cwd: logged,
  });
}

/** The real path, or the normalised path when it cannot be resolved (gone, unreadable). */
async function canonical(path: string): Promise<string> {
  return nodeFs()
    .promises.realpath(path)
    .catch(() => resolve(path));
}

/** The longest path Linux resolves; a longer one cannot name a directory anywhere. */
const PATH_MAX = 4096;

/**
 * Throws InvalidInputError unless `cwd` could name a directory at all: absolute (ACP requires
 * it), without a NUL byte, not longer than a path can be. Touches no file.
 */
export function checkCwdText(cwd: string): void {
  if (!isAbsolute(cwd)) throw unusable("cwd must be an absolute path", cwd);
  // The file system would only say "invalid argument".
  if (cwd.includes("\0")) throw unusable("cwd contains a NUL byte", cwd);
  if (cwd.length > PATH_MAX) throw unusable("cwd is too long", cwd);
}

/**
 * Directories the kernel makes up (`/proc/self` is dsh's own process): no project lives there,
 * commands cannot run there, and a file tool writing "under the project" would write to
 * process state instead.
 */
const KERNEL_ROOTS = ["/proc", "/sys", "/dev"];

function checkNotKernel(real: string, cwd: string): void {
  const root = KERNEL_ROOTS.find((r) => real === r || real.startsWith(`${r}/`));
  if (root !== undefined)
    throw unusable(`cwd is inside ${root}, a kernel file system, not a project directory`, cwd);
}

function whyNot(error: unknown): string {
  switch (errorCode(error)) {
    case "ENAMETOOLONG":
      return "is too long";
    case "EACCES":
    case "EPERM":
      return "cannot be accessed";
    case "ELOOP":
      return "is a symlink loop";
    default:
      return "does not exist";
  }
}

function unusable(problem: string, cwd: string): InvalidInputError {
  return new InvalidInputError(`${problem}: ${quoted(cwd)}`, { cwd: quoted(cwd) });
}
