/**
 * The first step of a new session: the request checked and its log made, before any of the
 * agent is needed. `dsh acp` answers `session/new` after this step and opens the handle after
 * the answer, so it loads only this module, the store's and the file calls they make.
 */
import { checkedCwdRoot } from "../session/cwd.ts";
import { checkAddedDirectory } from "../session/directories.ts";
import type { SessionLog, SessionStore } from "../session/types.ts";

/** A session whose log exists and whose handle is still to open. */
export interface NewSession {
  readonly log: SessionLog;
  /** The realpath of its cwd. */
  readonly root: string;
  /** The realpaths of the directories the request adds. */
  readonly given: readonly string[];
}

/**
 * Checks `cwd` and the added directories (InvalidInputError naming a bad one), then makes the
 * session's log. The caller owns the log until a service adopts it.
 */
export async function makeNewSession(
  store: SessionStore,
  options: { readonly cwd: string; readonly additionalDirectories?: readonly string[] },
): Promise<NewSession> {
  const root = await sessionRoot(options.cwd);
  const given = await checkedDirectories(options.additionalDirectories ?? []);
  const log = await store.create({ cwd: options.cwd });
  return { log, root, given };
}

/** The realpaths of the directories a request adds; InvalidInputError naming a bad entry. */
export function checkedDirectories(directories: readonly string[]): Promise<string[]> {
  return Promise.all(directories.map(checkAddedDirectory));
}

/** Checks `cwd` (absolute, an existing directory, no kernel file system) and returns its realpath. */
export function sessionRoot(cwd: string): Promise<string> {
  return checkedCwdRoot(cwd);
}
