/**
 * An MCP server speaking only the older SSE transport (GET /sse for the event stream, POST
 * /messages for requests), through the SDK's own SSE server transport on a real `node:http`
 * server on 127.0.0.1 and port 0. Anything else is a 404, as such servers answer a
 * streamable-HTTP POST.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { buildTestServer } from "./mcp-test-tools.ts";

export interface McpSseServer extends AsyncDisposable {
  /** The event-stream URL. */
  readonly url: string;
  readonly calls: { tool: string; args: unknown }[];
}

export async function startMcpSseServer(name: string): Promise<McpSseServer> {
  const calls: { tool: string; args: unknown }[] = [];
  const transports = new Map<string, SSEServerTransport>();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      res.on("close", () => transports.delete(transport.sessionId));
      await buildTestServer({ name, record: (call) => calls.push(call) }).connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/messages" && transport !== undefined) {
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  const listening = Promise.withResolvers<void>();
  http.listen(0, "127.0.0.1", () => listening.resolve());
  await listening.promise;
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    calls,
    async [Symbol.asyncDispose]() {
      for (const transport of transports.values()) await transport.close();
      http.closeAllConnections();
      const closed = Promise.withResolvers<void>();
      http.close(() => closed.resolve());
      await closed.promise;
    },
  };
}
