/**
 * The stored API key: `$DSH_HOME/auth.json`, mode 0600, written by `dsh login`. dsh's state
 * directory is hidden from sandboxed commands and refused by the file tools, so the key is
 * never readable by anything the model runs. An environment key always wins over it.
 */
import { nodeFs } from "../lazy-builtins.ts";
import { join } from "node:path";
import * as v from "valibot";

let authFile: ReturnType<typeof buildAuthFile> | undefined;
/** Built at the first read: `dsh acp` loads this module before its first message. */
function authFileSchema() {
  authFile ??= buildAuthFile();
  return authFile;
}

function buildAuthFile() {
  return v.object({
    version: v.literal(1),
    apiKey: v.pipe(v.string(), v.minLength(1)),
    savedAt: v.string(),
    /** The endpoint the key was checked against; files written before it was kept lack it. */
    baseUrl: v.optional(v.string()),
  });
}

/** The stored key and what is known of it. */
export interface StoredKey {
  readonly apiKey: string;
  /** The endpoint `dsh login` checked it against (absent in older files). */
  readonly baseUrl?: string;
}

/** Where the key lives in a state directory. */
export function authFilePath(home: string): string {
  return join(home, "auth.json");
}

/** The stored key, or undefined when there is none or the file is not ours. */
export function readStoredKey(home: string): string | undefined {
  return readStoredKeyRecord(home)?.apiKey;
}

/** The stored key with the endpoint it was checked against, or undefined. */
export function readStoredKeyRecord(home: string): StoredKey | undefined {
  try {
    const parsed = v.safeParse(
      authFileSchema(),
      JSON.parse(nodeFs().readFileSync(authFilePath(home), "utf8")),
    );
    if (!parsed.success) return undefined;
    const { apiKey, baseUrl } = parsed.output;
    return baseUrl === undefined ? { apiKey } : { apiKey, baseUrl };
  } catch {
    return undefined;
  }
}

/** Stores `key` (replacing any), readable by the user only, with the endpoint it was checked against. */
export function storeKey(home: string, key: string, baseUrl?: string): void {
  const { mkdirSync, renameSync, writeFileSync } = nodeFs();
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = authFilePath(home);
  const temp = `${path}.${process.pid}.tmp`;
  const body = {
    version: 1,
    apiKey: key,
    savedAt: new Date().toISOString(),
    ...(baseUrl === undefined ? {} : { baseUrl }),
  };
  writeFileSync(temp, `${JSON.stringify(body)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** Removes the stored key; false when there was none. */
export function removeStoredKey(home: string): boolean {
  const had = readStoredKey(home) !== undefined;
  nodeFs().rmSync(authFilePath(home), { force: true });
  return had;
}
