/**
 * The tools of the test MCP servers (stdio and HTTP alike), built with the official SDK: text,
 * structured, image and failing results, a call that waits until it is cancelled, a tool that
 * adds another tool and a prompt (so the server announces `tools/list_changed` and
 * `prompts/list_changed`), and awkward names and schemas. Their prompts: `review` (a required
 * and an optional argument; text, an embedded resource and an image) and `hello` (none). Each
 * call and prompt request is passed to `record` before it runs.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export interface TestServerOptions {
  readonly name: string;
  /** Sees every call (tool name and arguments) before it runs. */
  readonly record: (call: { tool: string; args: unknown }) => void;
  /**
   * Adds a tool whose name has characters tool names may not have (the SDK warns about it
   * on stderr when it is registered).
   */
  readonly awkwardName?: boolean;
  /** Adds an echo tool of this name (to make names of two servers' tools meet). */
  readonly extraTool?: string;
}

/** A one-pixel PNG, base64. */
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export function buildTestServer(options: TestServerOptions): McpServer {
  const server = new McpServer({ name: options.name, version: "1.0.0" });
  const record = (tool: string, args: unknown) => options.record({ tool, args });

  server.registerTool(
    "echo",
    {
      title: "Echo",
      description: "Says the text back.",
      inputSchema: { text: z.string().describe("what to say") },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => {
      record("echo", { text });
      return { content: [{ type: "text", text: `echo from ${options.name}: ${text}` }] };
    },
  );
  server.registerTool(
    "structured",
    {
      description: "Returns structured content only.",
      outputSchema: { answer: z.number() },
      annotations: { destructiveHint: true },
    },
    async () => {
      record("structured", {});
      return { content: [], structuredContent: { answer: 42 } };
    },
  );
  server.registerTool("picture", { description: "Returns an image." }, async () => {
    record("picture", {});
    return {
      content: [
        { type: "text", text: "a picture follows" },
        { type: "image", data: PIXEL, mimeType: "image/png" },
      ],
    };
  });
  server.registerTool("fail", { description: "Always fails." }, async () => {
    record("fail", {});
    return { isError: true, content: [{ type: "text", text: "it broke on purpose" }] };
  });
  server.registerTool("wait", { description: "Waits until cancelled." }, async (extra) => {
    record("wait", {});
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) resolve();
      extra.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return { content: [{ type: "text", text: "cancelled" }] };
  });
  server.registerTool("grow", { description: "Adds the tool late." }, async () => {
    record("grow", {});
    server.registerTool("late", { description: "Added by grow." }, async () => {
      record("late", {});
      return { content: [{ type: "text", text: "late tool ran" }] };
    });
    server.registerPrompt("late", { description: "Added by grow." }, () => {
      record("prompt:late", {});
      return { messages: [{ role: "user", content: { type: "text", text: "the late prompt" } }] };
    });
    return { content: [{ type: "text", text: "grown" }] };
  });
  server.registerPrompt(
    "review",
    {
      description: "Review code in a language",
      argsSchema: {
        language: z.string().describe("the language"),
        focus: z.string().optional().describe("what to look at"),
      },
    },
    (args) => {
      record("prompt:review", args);
      const focus = args.focus === undefined ? "" : `, looking at ${args.focus}`;
      return {
        messages: [
          {
            role: "user",
            content: { type: "text", text: `Review the ${args.language} code${focus}.` },
          },
          {
            role: "user",
            content: {
              type: "resource",
              resource: { uri: "test://style-guide", mimeType: "text/plain", text: "Tabs." },
            },
          },
          { role: "user", content: { type: "image", data: PIXEL, mimeType: "image/png" } },
        ],
      };
    },
  );
  server.registerPrompt("hello", { description: "Say hello" }, () => {
    record("prompt:hello", {});
    return { messages: [{ role: "user", content: { type: "text", text: "Say hello." } }] };
  });
  const { extraTool } = options;
  if (extraTool !== undefined) {
    server.registerTool(
      extraTool,
      { description: "Says the text back.", inputSchema: { text: z.string() } },
      async ({ text }) => {
        record(extraTool, { text });
        return { content: [{ type: "text", text: `${extraTool} from ${options.name}: ${text}` }] };
      },
    );
  }
  if (options.awkwardName !== true) return server;
  server.registerTool(
    "dotted.name/with spaces",
    {
      description: "A name with characters tool names may not have.",
      inputSchema: {
        filter: z.object({ kind: z.enum(["a", "b"]), limit: z.number().int().optional() }),
      },
    },
    async (args) => {
      record("dotted.name/with spaces", args);
      return { content: [{ type: "text", text: "dotted ran" }] };
    },
  );
  return server;
}
