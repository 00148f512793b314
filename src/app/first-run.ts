/**
 * The chat's first run without an API key: instead of a turn that fails, offer to log in or,
 * when an OpenAI-compatible server answers on a usual local port (Ollama, LM Studio,
 * llama.cpp, vLLM), to use it; that choice is written to the config file.
 */
import { type LocalServer, findLocalServers } from "./local-servers.ts";
import { setTopLevelKeys } from "./config-write.ts";
import { loadConfig } from "./config.ts";
import { createModelCatalog } from "../llm/catalog.ts";
import { needsApiKey } from "../llm/local-endpoint.ts";
import type { CliIo } from "../cli/io.ts";
import { terminalText } from "../render/terminal-text.ts";
import { runLogin } from "./login.ts";
import { readTerminalLine } from "../cli/secret-input.ts";

/** A local server and one of its models (none when it lists none). */
interface ServerChoice {
  readonly server: LocalServer;
  readonly model: string | undefined;
}

export interface FirstRunDeps {
  /** Where to look for local servers; the usual ports when absent. */
  readonly findServers?: () => Promise<LocalServer[]>;
  /** Reads the typed choice; the terminal's line (echoed) when absent. */
  readonly readChoice?: () => Promise<string | undefined>;
}

/** Resolves `continue` when the chat can start (a key or a local server is set up), else `quit`. */
export async function firstRun(io: CliIo, deps: FirstRunDeps = {}): Promise<"continue" | "quit"> {
  const config = loadConfig(io.env);
  const model = createModelCatalog({
    defaultModel: config.model,
    userModels: config.models,
  }).default;
  const endpoint = model.baseUrl ?? config.baseUrl;
  if (config.apiKeySource !== "none" || !needsApiKey(endpoint) || !io.stdinIsTTY) return "continue";

  const servers = await (deps.findServers ?? (() => findLocalServers()))();
  // Server names and model ids come from whatever answers on those ports.
  const write = (text: string) => io.stdout.write(terminalText(text));
  const echo = (text: string) => io.stdout.write(text);
  write(`dsh needs a model to talk to, and no API key is set for ${endpoint}.\n`);
  write("  1) paste an API key (checked, then stored like dsh login)\n");
  // Every model each server offers is a choice of its own.
  const choices = servers.flatMap((server): ServerChoice[] =>
    server.models.length === 0
      ? [{ server, model: undefined }]
      : server.models.map((model) => ({ server, model })),
  );
  choices.forEach(({ server, model }, index) => {
    const which = model === undefined ? "" : `, model ${model}`;
    write(`  ${index + 2}) use ${server.name} at ${server.baseUrl}${which}\n`);
  });
  write("  q) quit (or set DSH_API_KEY)\n");
  for (;;) {
    write("choose [1]: ");
    const answer = await (
      deps.readChoice ?? (() => readTerminalLine({ echo: true, write: echo }))
    )();
    write("\n");
    if (answer === undefined || answer === "q") return "quit";
    if (answer === "" || answer === "1") return (await runLogin(io)) === 0 ? "continue" : "quit";
    const choice = choices[Number(answer) - 2];
    if (choice === undefined) continue;
    const { server, model: chosen } = choice;
    setTopLevelKeys(config.configPath, {
      base_url: server.baseUrl,
      ...(chosen === undefined ? {} : { model: chosen }),
    });
    write(
      `using ${server.name}: wrote base_url${chosen === undefined ? "" : " and model"} to ${config.configPath}\n`,
    );
    return "continue";
  }
}
