/**
 * `dsh login` (and `dsh acp --login`, which editors run in a terminal for ACP terminal auth):
 * asks for an API key with hidden input, checks it with one cheap request to the configured
 * endpoint, and stores it (mode 0600) in dsh's state directory. `dsh logout` removes it.
 */
import { loadConfig } from "./config.ts";
import { checkKey } from "../auth/key-check.ts";
import { createTransport, fetchThrough } from "../llm/transport.ts";
import { authFilePath, removeStoredKey, storeKey } from "../auth/key-store.ts";
import { createModelCatalog } from "../llm/catalog.ts";
import { type CliIo, printError } from "../cli/io.ts";
import { readSecret } from "../cli/secret-input.ts";

/** Exit 0 once a checked key is stored; 1 when it was rejected or nothing was given. */
export async function runLogin(io: CliIo, read: typeof readSecret = readSecret): Promise<number> {
  const config = loadConfig(io.env);
  const model = createModelCatalog({
    defaultModel: config.model,
    userModels: config.models,
  }).default;
  const baseUrl = model.baseUrl ?? config.baseUrl;
  // Piped (`echo "$KEY" | dsh login`), nobody reads a prompt.
  if (io.stdinIsTTY) io.stderr.write(`API key for ${baseUrl} (input hidden, Enter to finish): `);
  const key = await read((text) => io.stderr.write(text));
  if (io.stdinIsTTY) io.stderr.write("\n");
  if (key === undefined) {
    printError(io, "no key given; nothing was stored");
    return 1;
  }
  const check = await checkKey({
    baseUrl,
    key,
    model: model.id,
    signal: AbortSignal.timeout(30_000),
    fetch: fetchThrough(createTransport(io.env)),
  });
  if (!check.ok) {
    const fix =
      check.reason === "rejected"
        ? "check the key (and DSH_BASE_URL if it is not this provider's) and run dsh login again"
        : "check DSH_BASE_URL and your network, then run dsh login again";
    printError(io, `${check.message}; nothing was stored. ${fix}`);
    return 1;
  }
  storeKey(config.home, key, baseUrl);
  io.stderr.write(`the key works; stored in ${authFilePath(config.home)} (readable by you only)\n`);
  if (config.apiKeySource === "env") {
    io.stderr.write("note: DSH_API_KEY or DEEPSEEK_API_KEY is set and wins over the stored key\n");
  }
  return 0;
}

/** Removes the stored key; exit 0 either way (saying whether there was one). */
export function runLogout(io: CliIo): number {
  const config = loadConfig(io.env);
  const had = removeStoredKey(config.home);
  io.stderr.write(had ? "the stored API key was removed\n" : "no API key was stored\n");
  return 0;
}
