import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import * as v from "valibot";
import { InvalidInputError } from "../../src/errors.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { createSessionRegistry } from "../../src/tools/session-registry.ts";
import type { AnyTool, RenderIntent, Tool } from "../../src/tools/types.ts";
import { coreTools, toolContext } from "./harness.ts";

const EchoInput = v.object({
  text: v.pipe(v.string(), v.description("What to echo.")),
  times: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description("Repeat count."))),
  tags: v.optional(v.pipe(v.array(v.object({ name: v.string() })), v.description("Tags."))),
});

const echo: Tool<typeof EchoInput> = {
  name: "echo",
  description: "Echo text.",
  input: EchoInput,
  execute: async (input) => ({ isError: false, output: input.text.repeat(input.times ?? 1) }),
  presentCall: (input) => ({ type: "generic", title: `Echo ${input.text}`, kind: "think" }),
  presentResult: (input, result) => ({
    type: "generic",
    title: `Echoed ${input.text}`,
    kind: "think",
    text: result.output,
  }),
};

const NoArgs = v.object({
  verbose: v.optional(v.pipe(v.boolean(), v.description("More output."))),
});

function throwing(name: string, error: unknown): Tool<typeof NoArgs> {
  return {
    name,
    description: "Always throws.",
    input: NoArgs,
    execute: async () => {
      throw error;
    },
    presentCall: () => {
      throw new Error("presenter bug");
    },
    presentResult: () => {
      throw new Error("presenter bug");
    },
  };
}

const quiet: Tool<typeof NoArgs> = {
  name: "quiet",
  description: "No presenters.",
  input: NoArgs,
  execute: async (input) => ({ isError: false, output: input.verbose === true ? "loud" : "ok" }),
};

const tools: AnyTool[] = [
  echo,
  quiet,
  throwing("dsh_fails", new InvalidInputError("bad thing")),
  throwing("bug", new TypeError("boom")),
];
const registry = createToolRegistry(tools);
const ctx = () => toolContext("/tmp");

describe("tool registry", () => {
  test("keeps the tools' names in order", () => {
    expect(registry.names).toEqual(["echo", "quiet", "dsh_fails", "bug"]);
  });

  test("refuses two tools with the same name", () => {
    expect(() => createToolRegistry([echo, quiet, echo])).toThrow('duplicate tool name "echo"');
  });

  test("runs a tool and presents its result", async () => {
    const call = await registry.execute("echo", '{"text":"ab","times":2}', ctx());
    expect(call).toEqual({
      result: { isError: false, output: "abab" },
      intent: { type: "generic", title: "Echoed ab", kind: "think", text: "abab" },
    });
  });

  test("an unknown tool is an error result naming the known tools", async () => {
    const call = await registry.execute("nope", "{}", ctx());
    expect(call.result).toEqual({
      isError: true,
      output: 'unknown tool "nope"; known tools: echo, quiet, dsh_fails, bug',
    });
    expect(call.intent).toEqual({
      type: "generic",
      title: "nope",
      kind: "other",
      text: call.result.output,
    });
  });

  test("an unknown tool's error lists only the tools the session offers", async () => {
    const hidden: Tool<typeof NoArgs> = { ...quiet, name: "hidden", available: () => false };
    const offered = createToolRegistry([echo, hidden]);
    const call = await offered.execute("nope", "{}", ctx());
    expect(call.result).toEqual({
      isError: true,
      output: 'unknown tool "nope"; known tools: echo',
    });
  });

  test("a session's unknown tool names the tools of both its parts, each as offered", async () => {
    const hidden: Tool<typeof NoArgs> = { ...quiet, name: "hidden", available: () => false };
    const session = createSessionRegistry(createToolRegistry([echo, hidden]), () =>
      createToolRegistry([{ ...quiet, name: "task" }]),
    );
    const call = await session.execute("nope", "{}", ctx());
    expect(call.result).toEqual({
      isError: true,
      output: 'unknown tool "nope"; known tools: echo, task',
    });
  });

  test("empty arguments mean an empty object", async () => {
    const call = await registry.execute("quiet", "", ctx());
    expect(call.result).toEqual({ isError: false, output: "ok" });
    expect(call.intent).toEqual({ type: "generic", title: "quiet", kind: "other", text: "ok" });
  });

  test("arguments that are not JSON are an error result", async () => {
    const call = await registry.execute("echo", '{"text": "a"', ctx());
    expect(call.result.isError).toBe(true);
    expect(call.result.output).toStartWith("arguments were not valid JSON: ");
  });

  test("schema failures list every issue with its path", async () => {
    const call = await registry.execute("echo", '{"times":0.5,"tags":[{"name":3}]}', ctx());
    expect(call.result).toEqual({
      isError: true,
      output: [
        "invalid arguments for echo:",
        "- text: required but missing",
        "- times: Invalid integer: Received 0.5",
        "- times: Invalid value: Expected >=1 but received 0.5",
        "- tags.0.name: Invalid type: Expected string but received 3",
      ].join("\n"),
    });
  });

  test("arguments that are not an object are refused", async () => {
    const call = await registry.execute("echo", '"hello"', ctx());
    expect(call.result).toEqual({
      isError: true,
      output:
        'invalid arguments for echo:\n- (arguments): Invalid type: Expected Object but received "hello"',
    });
  });

  test("a thrown DshError becomes its message; the presenter's throw falls back", async () => {
    const call = await registry.execute("dsh_fails", "{}", ctx());
    expect(call).toEqual({
      result: { isError: true, output: "bad thing" },
      intent: { type: "generic", title: "dsh_fails", kind: "other", text: "bad thing" },
    });
  });

  test("any other throw is an internal error, never a crash", async () => {
    const call = await registry.execute("bug", "{}", ctx());
    expect(call.result).toEqual({ isError: true, output: "internal error: boom" });
  });

  test("an aborted signal is a cancelled result and the tool does not run", async () => {
    const controller = new AbortController();
    controller.abort();
    const call = await registry.execute(
      "bug",
      "{}",
      toolContext("/tmp", { signal: controller.signal }),
    );
    expect(call.result).toEqual({ isError: true, output: "cancelled" });
  });

  test("a cancel returns after a short grace even when the tool ignores the signal", async () => {
    const logged = Promise.withResolvers<unknown>();
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (message: string, data?: Record<string, unknown>) => logged.resolve({ message, data }),
    };
    let rejectLater: (error: unknown) => void = () => {};
    const stuck: Tool<typeof NoArgs> = {
      name: "stuck",
      description: "Never settles on its own.",
      input: NoArgs,
      execute: () =>
        new Promise((_, reject) => {
          rejectLater = reject;
        }),
    };
    const controller = new AbortController();
    const pending = createToolRegistry([stuck], { logger }).execute(
      "stuck",
      "{}",
      toolContext("/tmp", { signal: controller.signal }),
    );
    controller.abort();
    expect((await pending).result).toEqual({ isError: true, output: "cancelled" });
    // The tool's own promise settles later; a failure then is logged, not lost.
    rejectLater(new TypeError("late bug"));
    expect(await logged.promise).toEqual({
      message: "tool failed after it was cancelled",
      data: { tool: "stuck", error: new TypeError("late bug") },
    });
  });

  test("a tool that stops on the cancel within the grace keeps its own result", async () => {
    const polite: Tool<typeof NoArgs> = {
      name: "polite",
      description: "Stops when cancelled.",
      input: NoArgs,
      execute: (_input, context) =>
        new Promise((resolve) => {
          context.signal.addEventListener("abort", () =>
            resolve({ isError: true, output: "stopped; partial output" }),
          );
        }),
    };
    const controller = new AbortController();
    const pending = createToolRegistry([polite]).execute(
      "polite",
      "{}",
      toolContext("/tmp", { signal: controller.signal }),
    );
    controller.abort();
    expect((await pending).result).toEqual({ isError: true, output: "stopped; partial output" });
  });

  test("presentCall uses the tool's presenter for valid input", () => {
    expect(registry.presentCall("echo", '{"text":"hi"}', { cwd: "/tmp" })).toEqual({
      type: "generic",
      title: "Echo hi",
      kind: "think",
    });
  });

  test("presentCall falls back for unknown tools, invalid input, missing or throwing presenters", () => {
    const generic = (title: string, text: string): RenderIntent => ({
      type: "generic",
      title,
      kind: "other",
      text,
    });
    const pretty = JSON.stringify({ text: 3 }, null, 2);
    expect(registry.presentCall("nope", '{"a":1}', { cwd: "/" })).toEqual(
      generic("nope", JSON.stringify({ a: 1 }, null, 2)),
    );
    expect(registry.presentCall("echo", '{"text":3}', { cwd: "/" })).toEqual(
      generic("echo", pretty),
    );
    expect(registry.presentCall("echo", "{not json", { cwd: "/" })).toEqual(
      generic("echo", "{not json"),
    );
    expect(registry.presentCall("quiet", "", { cwd: "/" })).toEqual(generic("quiet", "{}"));
    expect(registry.presentCall("bug", "{}", { cwd: "/" })).toEqual(generic("bug", "{}"));
  });
});

describe("tool definitions", () => {
  const coreRegistry = createToolRegistry(coreTools({ homeDir: "/nonexistent-home" }));

  test("are generated from the schemas, without $schema, in tool order", () => {
    expect(registry.definitions()[0]).toEqual({
      name: "echo",
      description: "Echo text.",
      parameters: {
        type: "object",
        properties: {
          text: { type: "string", description: "What to echo." },
          times: { type: "integer", minimum: 1, description: "Repeat count." },
          tags: {
            type: "array",
            items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
            description: "Tags.",
          },
        },
        required: ["text"],
      },
    });
  });

  test("are the same object and bytes on every call", () => {
    const first = coreRegistry.definitions();
    expect(coreRegistry.definitions()).toBe(first);
    expect(JSON.stringify(createToolRegistry(coreTools()).definitions())).toBe(
      JSON.stringify(first),
    );
  });

  test("core tools, in the order the model sees: valid JSON Schema objects, described properties, required fields", () => {
    const ajv = new Ajv({ strict: true });
    const summary = coreRegistry.definitions().map((definition) => {
      ajv.compile(definition.parameters);
      const properties = v.parse(
        v.record(v.string(), v.object({ description: v.pipe(v.string(), v.minLength(10)) })),
        definition.parameters.properties,
      );
      expect(definition.parameters.type).toBe("object");
      expect(definition.description.length).toBeGreaterThan(20);
      return {
        name: definition.name,
        properties: Object.keys(properties),
        required: definition.parameters.required,
      };
    });
    expect(summary).toEqual([
      { name: "read_file", properties: ["path", "offset", "limit"], required: ["path"] },
      { name: "write_file", properties: ["path", "content"], required: ["path", "content"] },
      {
        name: "edit_file",
        properties: ["path", "old_string", "new_string", "replace_all"],
        required: ["path", "old_string", "new_string"],
      },
      { name: "glob", properties: ["pattern", "path"], required: ["pattern"] },
      {
        name: "grep",
        properties: ["pattern", "path", "glob", "ignore_case"],
        required: ["pattern"],
      },
      {
        name: "bash",
        properties: ["command", "timeout_ms", "escalate", "justification", "run_in_background"],
        required: ["command"],
      },
      { name: "ask_user_question", properties: ["questions"], required: ["questions"] },
      { name: "todo_write", properties: ["todos"], required: ["todos"] },
    ]);
  });
});
