/**
 * Finding Markdown files with front matter in an ordered list of directories: skills
 * (`<dir>/<name>/SKILL.md`), custom commands (`<dir>/<name>.md`) and whatever else is kept that
 * way. Each file is read like an `AGENTS.md` (`readContextFile`: inside its place's root, no
 * link to a secret, bounded, UTF-8), and one that cannot be read or parsed is a skipped entry
 * with its reason. A scanner keeps what it read by the file's identity and times, so scanning
 * again reads only files that changed.
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { errorCode } from "../error-code.ts";
import { errorMessage } from "../errors.ts";
import { readContextFile } from "../file-safety/context-read.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { type SecretSnapshot, snapshotSecrets } from "../file-safety/secret-identity.ts";
import { parseFrontMatter } from "./parse.ts";

/** One directory to search. */
export interface MarkdownPlace {
  /** The directory searched (absolute). */
  readonly dir: string;
  /** The directory every file found here must resolve inside: the repository, the config dir. */
  readonly within: string;
  /** Where this is, in words (`project`, `user`, `config`), for listings. */
  readonly scope: string;
}

/** How entries lie in a place: `<name>.md` files, or `<name>/<file>` folders. */
export type MarkdownLayout =
  | { readonly type: "files"; readonly extension: string }
  | { readonly type: "folders"; readonly file: string };

/** A file read and parsed: its name (the file's stem or its folder's name) and contents. */
export interface MarkdownFile {
  readonly name: string;
  /** The path as found (under `place.dir`), not its realpath. */
  readonly path: string;
  readonly place: MarkdownPlace;
  /** The front matter's keys; empty without front matter. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly body: string;
  /** Whether the file has a front matter block. */
  readonly hasFrontMatter: boolean;
}

/** A file (or a place) left out, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** What one scan found: files in place order (then by name), and what it left out. */
export interface MarkdownScan {
  readonly files: readonly MarkdownFile[];
  readonly skipped: readonly SkippedFile[];
}

export interface MarkdownScannerOptions {
  readonly layout: MarkdownLayout;
  /** What is never read: credential stores, dsh's state directory. */
  readonly secrets: SecretPlaces;
  /** The largest file read, in bytes; a larger one is skipped whole. */
  readonly maxBytes: number;
  /** Entries looked at per place; the rest are left out with a skipped entry. */
  readonly maxEntries?: number;
}

export interface MarkdownScanner {
  /**
   * Scans `places` in order. Never throws for what the disk holds; rejects only once `signal`
   * aborts.
   */
  scan(places: readonly MarkdownPlace[], signal: AbortSignal): Promise<MarkdownScan>;
}

const DEFAULT_MAX_ENTRIES = 1_000;
/** Files read at once: enough to overlap the file system's latency, few enough for 2 cores. */
const READS_AT_ONCE = 8;

type Outcome =
  | { readonly type: "file"; readonly file: MarkdownFile }
  | { readonly type: "skipped"; readonly skipped: SkippedFile }
  | { readonly type: "none" };

interface Candidate {
  readonly name: string;
  readonly path: string;
  readonly place: MarkdownPlace;
}

export function createMarkdownScanner(options: MarkdownScannerOptions): MarkdownScanner {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  /** What each path held when last read, by its identity and times. */
  let cache = new Map<string, { stamp: string; outcome: Outcome }>();

  const readOne = async (
    candidate: Candidate,
    snapshot: SecretSnapshot,
    signal: AbortSignal,
  ): Promise<Outcome> => {
    const { path, place } = candidate;
    const skipped = (reason: string): Outcome => ({ type: "skipped", skipped: { path, reason } });
    const read = await readContextFile({
      path,
      within: place.within,
      maxBytes: options.maxBytes,
      secrets: options.secrets,
      snapshot,
      // dsh reads these on its own: the checks of AGENTS.md, not those of a file the user named.
      origin: "instructions",
      signal,
    });
    if (read.type === "missing") return { type: "none" };
    if (read.type === "refused") return skipped(read.reason);
    const parsed = await parseFrontMatter(read.text);
    if (!parsed.ok) return skipped(parsed.reason);
    const file: MarkdownFile = {
      name: candidate.name,
      path,
      place,
      data: parsed.data,
      body: parsed.body,
      hasFrontMatter: parsed.present,
    };
    return { type: "file", file };
  };

  return {
    async scan(places, signal) {
      const listed = await Promise.all(
        places.map((place) => listPlace(place, options.layout, maxEntries)),
      );
      const candidates = listed.flatMap((entry) => entry.candidates);
      // One look at the secret places for the whole scan, taken when there is a file to read.
      let snapshot: SecretSnapshot | undefined;
      const next = new Map<string, { stamp: string; outcome: Outcome }>();
      const outcomes = await mapLimited(candidates, READS_AT_ONCE, async (candidate) => {
        signal.throwIfAborted();
        const stamp = await stampOf(candidate.path);
        const known = stamp === undefined ? undefined : cache.get(candidate.path);
        if (known !== undefined && known.stamp === stamp) {
          next.set(candidate.path, known);
          return known.outcome;
        }
        snapshot ??= snapshotSecrets(options.secrets);
        const outcome = await readOne(candidate, snapshot, signal).catch((error: unknown) => {
          signal.throwIfAborted();
          return {
            type: "skipped",
            skipped: { path: candidate.path, reason: errorMessage(error) },
          } satisfies Outcome;
        });
        if (stamp !== undefined) next.set(candidate.path, { stamp, outcome });
        return outcome;
      });
      cache = next;
      const files: MarkdownFile[] = [];
      const skipped: SkippedFile[] = listed.flatMap((entry) => entry.skipped);
      for (const outcome of outcomes) {
        if (outcome.type === "file") files.push(outcome.file);
        else if (outcome.type === "skipped") skipped.push(outcome.skipped);
      }
      return { files, skipped };
    },
  };
}

/** The entries of one place that may hold a file, sorted by name; a missing place has none. */
async function listPlace(
  place: MarkdownPlace,
  layout: MarkdownLayout,
  maxEntries: number,
): Promise<{ candidates: Candidate[]; skipped: SkippedFile[] }> {
  let entries: Dirent[];
  try {
    entries = await readdir(place.dir, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { candidates: [], skipped: [] };
    return {
      candidates: [],
      skipped: [{ path: place.dir, reason: `it cannot be listed: ${errorMessage(error)}` }],
    };
  }
  const candidates: Candidate[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const link = entry.isSymbolicLink();
    if (layout.type === "files") {
      if (!entry.name.endsWith(layout.extension) || !(entry.isFile() || link)) continue;
      const name = entry.name.slice(0, -layout.extension.length);
      if (name !== "") candidates.push({ name, path: join(place.dir, entry.name), place });
    } else if (entry.isDirectory() || link) {
      candidates.push({ name: entry.name, path: join(place.dir, entry.name, layout.file), place });
    }
  }
  candidates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (candidates.length <= maxEntries) return { candidates, skipped: [] };
  const reason = `it holds more than ${maxEntries} entries; the rest (from ${candidates[maxEntries]?.name}) are left out`;
  return { candidates: candidates.slice(0, maxEntries), skipped: [{ path: place.dir, reason }] };
}

/** The file's identity and times, which change whenever its contents may have; undefined: none. */
async function stampOf(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return undefined;
  }
}

/** `items` mapped by `work`, at most `limit` at once, results in the items' order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
