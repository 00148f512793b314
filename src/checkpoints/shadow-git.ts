/**
 * git over a shadow object store: dsh's own repository under its state directory, pointed at a
 * workspace with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE. The project's own `.git` is never
 * opened for writing (only its `info/exclude` is read), and nothing of the project configures
 * this git: no system or global config, no hooks, no fsmonitor, and attributes that turn every
 * filter and line-ending conversion off, so a restored file has the bytes it had.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { DshError } from "../errors.ts";
import { findExecutable } from "../exec/locate.ts";
import { isWithin } from "../paths.ts";

const GIT_TEXT = new TextDecoder("utf-8", { ignoreBOM: true });

/** git's empty tree: what a workspace with no files is. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** The checkpoint store could not do what it was asked (git missing, or git failed). */
export class CheckpointError extends DshError<"checkpoint"> {
  constructor(message: string, details?: Record<string, unknown>) {
    super("checkpoint", message, { data: details });
  }
}

/**
 * The git executable, or undefined when there is none: from PATH's absolute entries outside
 * the session's `roots` (a relative entry, or one in the workspace, would run the repository's
 * own `git` outside the sandbox).
 */
export function findGit(path: string | undefined, roots: readonly string[]): string | undefined {
  const trusted = (path ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && !roots.some((root) => isWithin(root, dir)))
    .join(delimiter);
  return findExecutable("git", [], trusted);
}

/**
 * How long one git run of a checkpoint may take: something in the workspace that blocks a
 * read (a FIFO named `.gitignore`) must not hold the session's turns for ever. Past it the
 * run is killed and fails, and the checkpoint with it.
 */
const GIT_TIME_LIMIT = { timeout: 120_000, killSignal: "SIGKILL" } as const;

/** One workspace root seen through a shadow store. */
export interface ShadowGit {
  /** Runs git with `args`; stdout as bytes. Throws CheckpointError on a non-zero exit. */
  run(
    args: readonly string[],
    input?: string | Uint8Array,
    accept?: readonly number[],
  ): Promise<Uint8Array>;
  text(args: readonly string[], input?: string, accept?: readonly number[]): Promise<string>;
  /** The same git staging in another index (a scratch one for a restore). */
  withIndex(indexFile: string): ShadowGit;
  /** Runs git with `args`, its stdin written from `chunks` as they come. */
  feed(args: readonly string[], chunks: Iterable<Uint8Array>): Promise<void>;
  /** Whether this root's index exists yet (it does after the first snapshot). */
  hasIndex(): boolean;
}

export interface ShadowGitOptions {
  readonly git: string;
  /** The shadow store's git directory (made on first use). */
  readonly gitDir: string;
  /** The workspace root (a realpath). */
  readonly root: string;
  /** The index this root is staged in (its stat data makes the next snapshot incremental). */
  readonly indexFile: string;
  /** The PATH git runs with (its own helpers are found there). */
  readonly path: string | undefined;
}

/** Flags every call gets: nothing the project or the user configured changes what git does. */
const FIXED_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=true",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.filemode=true",
  "core.symlinks=true",
  "core.quotePath=false",
  "core.preloadIndex=true",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.detachedHead=false",
  "submodule.recurse=false",
  "status.showUntrackedFiles=all",
];

/** In `info/attributes`, which wins over every `.gitattributes`: no filter, no conversion. */
const NEUTRAL_ATTRIBUTES = "* -text !eol -filter -ident !working-tree-encoding\n";

/** A git that reads `root` and writes only to `gitDir` and `indexFile`. */
export function shadowGit(options: ShadowGitOptions): ShadowGit {
  ensureStore(options.gitDir);
  const config = [...FIXED_CONFIG, `core.excludesFile=${projectExcludes(options.root)}`];
  return gitWith(options, config);
}

function gitWith(options: ShadowGitOptions, config: readonly string[]): ShadowGit {
  const env: Record<string, string> = {
    PATH: options.path ?? "/usr/bin:/bin",
    GIT_DIR: options.gitDir,
    GIT_WORK_TREE: options.root,
    GIT_INDEX_FILE: options.indexFile,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_AUTHOR_NAME: "dsh",
    GIT_AUTHOR_EMAIL: "dsh@localhost",
    GIT_COMMITTER_NAME: "dsh",
    GIT_COMMITTER_EMAIL: "dsh@localhost",
    HOME: options.gitDir,
    LC_ALL: "C",
  };
  const argvOf = (args: readonly string[]) => [
    options.git,
    ...config.flatMap((entry) => ["-c", entry]),
    ...args,
  ];
  const run = async (
    args: readonly string[],
    input?: string | Uint8Array,
    accept: readonly number[] = [0],
  ): Promise<Uint8Array> => {
    const argv = argvOf(args);
    const proc = Bun.spawn(argv, {
      cwd: options.root,
      env,
      stdin:
        input === undefined
          ? "ignore"
          : typeof input === "string"
            ? new TextEncoder().encode(input)
            : input,
      stdout: "pipe",
      stderr: "pipe",
      ...GIT_TIME_LIMIT,
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).bytes(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (!accept.includes(code)) {
      throw new CheckpointError(`git ${args[0]} failed: ${err.trim() || `exit ${code}`}`, {
        root: options.root,
      });
    }
    return out;
  };
  return {
    run,
    // git's output names paths: a leading U+FEFF is a name's, not a mark to drop.
    text: async (args, input, accept) => GIT_TEXT.decode(await run(args, input, accept)),
    withIndex: (indexFile) => gitWith({ ...options, indexFile }, config),
    hasIndex: () => existsSync(options.indexFile),
    async feed(args, chunks) {
      const proc = Bun.spawn(argvOf(args), {
        cwd: options.root,
        env,
        stdin: "pipe",
        stdout: "ignore",
        stderr: "pipe",
        ...GIT_TIME_LIMIT,
      });
      const stderr = new Response(proc.stderr).text();
      try {
        for (const chunk of chunks) {
          proc.stdin.write(chunk);
          await proc.stdin.flush();
        }
      } finally {
        await proc.stdin.end();
      }
      const code = await proc.exited;
      if (code !== 0) {
        throw new CheckpointError(
          `git ${args[0]} failed: ${(await stderr).trim() || `exit ${code}`}`,
          {
            root: options.root,
          },
        );
      }
    },
  };
}

/** Makes the bare store once: no hooks, no templates, neutral attributes. */
function ensureStore(gitDir: string): void {
  if (existsSync(join(gitDir, "HEAD"))) return;
  for (const dir of ["objects/info", "objects/pack", "refs/heads", "refs/tags", "info"]) {
    mkdirSync(join(gitDir, dir), { recursive: true, mode: 0o700 });
  }
  writeFileSync(join(gitDir, "info", "attributes"), NEUTRAL_ATTRIBUTES);
  writeFileSync(
    join(gitDir, "config"),
    "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tlogallrefupdates = false\n",
  );
  writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/checkpoints\n");
}

/**
 * The `info/exclude` of the repository `root` lies in (read, never written), so what the user
 * excludes there stays out of checkpoints too; /dev/null when there is none.
 */
export function projectExcludes(root: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    const gitDir = gitDirOf(dotGit);
    if (gitDir !== undefined) {
      const common = commonDirOf(gitDir);
      const exclude = join(common, "info", "exclude");
      // A regular file only: a FIFO planted there would hold every git run that reads it.
      return statSync(exclude, { throwIfNoEntry: false })?.isFile() === true
        ? exclude
        : "/dev/null";
    }
    if (dirname(dir) === dir) return "/dev/null";
  }
}

function gitDirOf(dotGit: string): string | undefined {
  try {
    const stat = statSync(dotGit);
    if (stat.isDirectory()) return dotGit;
    if (!stat.isFile()) return undefined;
    const line = readFileSync(dotGit, "utf8")
      .match(/^gitdir:\s*(.+)$/m)?.[1]
      ?.trim();
    if (line === undefined) return undefined;
    return line.startsWith("/") ? line : join(dirname(dotGit), line);
  } catch {
    return undefined;
  }
}

function commonDirOf(gitDir: string): string {
  try {
    const common = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    return common.startsWith("/") ? common : join(gitDir, common);
  } catch {
    return gitDir;
  }
}
