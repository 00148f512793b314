/**
 * A session's library: skills and custom commands found in its folders, and its MCP servers'
 * prompts. The first scan starts in the background once the request that opened the session
 * is answered; later scans run when a surface asks (at each prompt, and before a command from
 * a file runs), and MCP prompt lists follow their servers. A file that cannot be used is left
 * out with one warning (the log, and a notice in the next turn) naming it and the reason.
 */
import { ConflictError } from "../errors.ts";
import {
  type MarkdownFile,
  type MarkdownScan,
  createMarkdownScanner,
  firstOfEachName,
} from "../front-matter/index.ts";
import type { Logger } from "../log.ts";
import type { McpServers } from "../mcp/types.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { type CustomCommand, customCommandOf } from "./custom-command.ts";
import { skillsBlock } from "../skills/prompt-block.ts";
import { type Skill, skillOf } from "../skills/skill.ts";
import { type LibraryPlaces, type PlaceRoots, libraryPlaces } from "./places.ts";
import type { LibraryPrompt, LibrarySkipped, LibrarySnapshot, SessionLibrary } from "./types.ts";

/** The largest `SKILL.md` or command file read; a larger one is left out. */
export const MAX_LIBRARY_FILE_BYTES = 128 * 1024;
/** How long one scan may take (a hung network mount); what it did not reach is left out. */
const SCAN_TIMEOUT_MS = 10_000;

export interface SessionLibraryDeps extends PlaceRoots {
  /** What is never read: credential stores, dsh's state directory. */
  readonly secrets: SecretPlaces;
  readonly logger: Logger;
  /** Names the built-in commands hold: a skill or command of such a name is left out. */
  readonly reserved: readonly string[];
  /** The session's MCP servers, once started; none when it has none. */
  readonly mcp: () => McpServers | undefined;
  /** Tells the user about files left out (once each). */
  readonly warn: (notice: { title: string; description: string }) => void;
}

const EMPTY: LibrarySnapshot = { skills: [], commands: [], prompts: [], skipped: [] };

export function createSessionLibrary(deps: SessionLibraryDeps): SessionLibrary & {
  /** Re-reads the MCP servers' prompts (a server came up, went away or changed its list). */
  promptsChanged(): void;
  /**
   * Searches `dir` too from the next scan on, which starts now; the skills block is made
   * again from it, as a session opened with `dir` would have it.
   */
  addRoot(dir: string): void;
  /** Stops: no scan starts and no listener is called after this. */
  close(): void;
} {
  const { logger } = deps;
  const extraRoots = [...deps.extraRoots];
  const skillScanner = createMarkdownScanner({
    layout: { type: "folders", file: "SKILL.md" },
    secrets: deps.secrets,
    maxBytes: MAX_LIBRARY_FILE_BYTES,
  });
  const commandScanner = createMarkdownScanner({
    layout: { type: "files", extension: ".md" },
    secrets: deps.secrets,
    maxBytes: MAX_LIBRARY_FILE_BYTES,
  });
  const closing = new AbortController();
  const listeners = new Set<() => void>();
  /** Every (path, reason) already warned about: each is said once per session. */
  const warned = new Set<string>();
  let places: LibraryPlaces | undefined;
  let scanned: { skills: MarkdownScan; commands: MarkdownScan } | undefined;
  let snapshot = EMPTY;
  let signature = signatureOf(EMPTY);
  let block: Promise<string> | undefined;
  let listed: ReadonlySet<string> = new Set();

  const publish = () => {
    if (closing.signal.aborted) return;
    const next = build(scanned, deps);
    const nextSignature = signatureOf(next);
    snapshot = next;
    announce(next.skipped);
    if (nextSignature === signature) return;
    signature = nextSignature;
    for (const listener of listeners) listener();
  };

  /** Warns once about each file newly left out for a reason other than an override. */
  const announce = (skipped: readonly LibrarySkipped[]) => {
    const fresh = skipped.filter((entry) => {
      const key = `${entry.path}\0${entry.reason}`;
      if (entry.overridden || warned.has(key)) return false;
      warned.add(key);
      return true;
    });
    for (const entry of fresh) {
      logger.warn(`${entry.kind} left out`, { path: entry.path, reason: entry.reason });
    }
    if (fresh.length === 0) return;
    deps.warn({
      title:
        fresh.length === 1
          ? `a ${fresh[0]?.kind} was left out`
          : `${fresh.length} skills, commands or prompts were left out`,
      description: fresh.map((entry) => `${entry.path}: ${entry.reason}`).join("\n"),
    });
  };

  const scanOnce = async () => {
    if (closing.signal.aborted) return;
    const started = performance.now();
    places ??= libraryPlaces({ ...deps, extraRoots });
    const signal = AbortSignal.any([closing.signal, AbortSignal.timeout(SCAN_TIMEOUT_MS)]);
    try {
      const [skills, commands] = await Promise.all([
        skillScanner.scan(places.skills, signal),
        commandScanner.scan(places.commands, signal),
      ]);
      scanned = { skills, commands };
    } catch (error) {
      if (closing.signal.aborted) return;
      logger.warn("skills and commands were not all read in time; the last scan stays", {
        error,
      });
      return;
    }
    publish();
    logger.debug("skills and commands scanned", {
      ms: Math.round(performance.now() - started),
      skills: snapshot.skills.length,
      commands: snapshot.commands.length,
    });
  };

  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    if (queued !== undefined) return queued;
    const next = tail
      .then(async () => {
        queued = undefined;
        await scanOnce();
      })
      .catch((error: unknown) => logger.error("a library scan failed", { error }));
    queued = next;
    tail = next;
    return next;
  };

  const makeBlock = () => {
    const made = skillsBlock(snapshot.skills);
    const left = new Set(made.left.map((skill) => skill.name));
    listed = new Set(snapshot.skills.map((s) => s.name).filter((name) => !left.has(name)));
    if (made.left.length > 0) {
      logger.warn("the system prompt has no room for every skill; /name still runs them", {
        left: made.left.map((skill) => skill.name),
      });
    }
    return made.text;
  };

  // After the current I/O turn: the answer to the request that opened the session goes out
  // before any file is read.
  const first: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve)).then(refresh);

  return {
    snapshot: () => snapshot,
    ready: () => first,
    refresh,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    skillsBlock() {
      block ??= first.then(makeBlock);
      return block;
    },
    addRoot(dir) {
      if (extraRoots.includes(dir)) return;
      extraRoots.push(dir);
      places = undefined;
      block = first.then(refresh).then(makeBlock);
    },
    listsSkill: (name) => listed.has(name),
    async getPrompt(server, prompt, args, signal) {
      const mcp = deps.mcp();
      if (mcp === undefined) throw new ConflictError("this session has no MCP servers", { server });
      return mcp.getPrompt(server, prompt, args, signal);
    },
    promptsChanged: publish,
    close() {
      closing.abort();
      listeners.clear();
    },
  };
}

/** What the last scan and the MCP servers offer now, with what is left out and why. */
function build(
  files: { skills: MarkdownScan; commands: MarkdownScan } | undefined,
  { reserved, mcp }: Pick<SessionLibraryDeps, "reserved" | "mcp">,
): LibrarySnapshot {
  const skipped: LibrarySkipped[] = [];
  const builtIn = new Set(reserved);
  const fromFiles = <T extends { name: string; path: string }>(
    kind: "skill" | "command",
    scan: MarkdownScan | undefined,
    read: (file: MarkdownFile) => { ok: true; value: T } | { ok: false; reason: string },
    skills: ReadonlyMap<string, string>,
  ): T[] => {
    const leaveOut = (path: string, reason: string, overridden = false) =>
      skipped.push({ kind, path, reason, overridden });
    for (const entry of scan?.skipped ?? []) leaveOut(entry.path, entry.reason);
    const valid: T[] = [];
    for (const file of scan?.files ?? []) {
      const result = read(file);
      if (!result.ok) leaveOut(file.path, result.reason);
      else if (builtIn.has(result.value.name))
        leaveOut(file.path, `the built-in command /${result.value.name} has this name`);
      else if (skills.has(result.value.name))
        leaveOut(file.path, `the skill ${skills.get(result.value.name)} has this name`, true);
      else valid.push(result.value);
    }
    const { kept, shadowed } = firstOfEachName(valid, (entry) => entry.name);
    for (const { entry, by } of shadowed) leaveOut(entry.path, `overridden by ${by.path}`, true);
    return kept;
  };
  const skills: Skill[] = fromFiles(
    "skill",
    files?.skills,
    (file) => {
      const read = skillOf(file);
      return read.ok ? { ok: true, value: read.skill } : read;
    },
    new Map(),
  );
  const commands: CustomCommand[] = fromFiles(
    "command",
    files?.commands,
    (file) => {
      const read = customCommandOf(file);
      return read.ok ? { ok: true, value: read.command } : read;
    },
    new Map(skills.map((skill) => [skill.name, skill.path])),
  );
  const prompts = promptsOf(mcp(), skipped);
  return { skills, commands, prompts, skipped };
}

/** The MCP servers' prompts as commands; a name two of them make alike keeps the first. */
function promptsOf(mcp: McpServers | undefined, skipped: LibrarySkipped[]): LibraryPrompt[] {
  const all = (mcp?.prompts() ?? []).flatMap(({ server, prompts }) =>
    prompts.map((prompt) => ({
      name: `${typable(server)}:${typable(prompt.name)}`,
      server,
      prompt,
    })),
  );
  const { kept, shadowed } = firstOfEachName(all, (entry) => entry.name);
  for (const { entry, by } of shadowed) {
    skipped.push({
      kind: "prompt",
      path: `${entry.server}:${entry.prompt.name}`,
      reason: `its command name /${entry.name} is taken by ${by.server}:${by.prompt.name}`,
      overridden: false,
    });
  }
  return kept;
}

/** A server's or prompt's name as one typable word: characters outside `[A-Za-z0-9._-]` become `_`. */
function typable(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64) || "_";
}

/** What a snapshot offers, as one string: two snapshots that offer the same are equal. */
function signatureOf(snapshot: LibrarySnapshot): string {
  return JSON.stringify([
    snapshot.skills.map((s) => [s.name, s.description, s.hint, s.path, s.body]),
    snapshot.commands.map((c) => [c.name, c.description, c.hint, c.path, c.body]),
    snapshot.prompts.map((p) => [p.name, p.prompt]),
    snapshot.skipped.map((s) => [s.path, s.reason]),
  ]);
}
