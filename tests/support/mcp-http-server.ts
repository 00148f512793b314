/**
 * The HTTP MCP server of the tests: a real `Bun.serve` on 127.0.0.1 and port 0 speaking
 * streamable HTTP through the SDK's web-standard transport (stateless: a fresh server per
 * request). Records every tool call and the headers of every request.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { buildTestServer } from "./mcp-test-tools.ts";

export interface McpHttpServer extends AsyncDisposable {
  readonly url: string;
  readonly calls: { tool: string; args: unknown }[];
  readonly headers: Record<string, string>[];
}

export function startMcpHttpServer(name: string): McpHttpServer {
  const calls: { tool: string; args: unknown }[] = [];
  const headers: Record<string, string>[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      headers.push(Object.fromEntries(request.headers));
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      const mcp = buildTestServer({ name, record: (call) => calls.push(call) });
      await mcp.connect(transport);
      return transport.handleRequest(request);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    calls,
    headers,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
    },
  };
}
