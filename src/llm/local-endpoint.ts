/** Endpoints on this machine (Ollama, LM Studio, llama.cpp, vLLM) usually take no API key. */

/** Whether requests to `baseUrl` need a key: false for servers on the loopback interface. */
export function needsApiKey(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return !(host === "127.0.0.1" || host === "localhost" || host === "[::1]");
  } catch {
    return true;
  }
}
