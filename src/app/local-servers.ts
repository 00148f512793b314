/**
 * OpenAI-compatible servers on this machine's usual ports, for a first run without an API key
 * and for `dsh doctor`. Each is asked for its models list, briefly, on 127.0.0.1 only.
 */
import * as v from "valibot";

export interface LocalServer {
  readonly name: string;
  /** The base URL dsh would use (`/chat/completions` is appended). */
  readonly baseUrl: string;
  /** The ids its `/models` list names, in its order. */
  readonly models: readonly string[];
}

/** Where the common local servers listen by default. */
export const LOCAL_SERVERS: readonly { readonly name: string; readonly port: number }[] = [
  { name: "Ollama", port: 11434 },
  { name: "LM Studio", port: 1234 },
  { name: "llama.cpp", port: 8080 },
  { name: "vLLM", port: 8000 },
];

const ModelsList = v.object({ data: v.array(v.object({ id: v.string() })) });

/** The servers that answered within `timeoutMs`, in the order of `LOCAL_SERVERS`. */
export async function findLocalServers(
  options: { timeoutMs?: number; candidates?: typeof LOCAL_SERVERS; host?: string } = {},
): Promise<LocalServer[]> {
  const host = options.host ?? "127.0.0.1";
  const found = await Promise.all(
    (options.candidates ?? LOCAL_SERVERS).map(async ({ name, port }) => {
      const baseUrl = `http://${host}:${port}/v1`;
      try {
        const response = await fetch(`${baseUrl}/models`, {
          signal: AbortSignal.timeout(options.timeoutMs ?? 400),
        });
        if (!response.ok) return undefined;
        const list = v.safeParse(ModelsList, await response.json());
        if (!list.success) return undefined;
        return { name, baseUrl, models: list.output.data.map((model) => model.id) };
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((server) => server !== undefined);
}
