/**
 * A session's tool registry: the core tools, whose definitions stay the same objects on every
 * request (the provider's prompt cache keeps hitting), followed by tools that come and go
 * with the session (its MCP servers'). Calls go to the part that has the tool.
 */
import { unknownToolCall } from "./registry.ts";
import type { ToolRegistry } from "./types.ts";

/** `extra()` is read on every call, so a change there reaches the next request. */
export function createSessionRegistry(core: ToolRegistry, extra: () => ToolRegistry): ToolRegistry {
  const owner = (name: string): ToolRegistry => {
    const dynamic = extra();
    return dynamic.names.includes(name) ? dynamic : core;
  };
  return {
    get names() {
      return [...core.names, ...extra().names];
    },
    definitions(ctx) {
      const added = extra().definitions(ctx);
      const base = core.definitions(ctx);
      return added.length === 0 ? base : [...base, ...added];
    },
    presentCall: (name, rawArguments, ctx) => owner(name).presentCall(name, rawArguments, ctx),
    execute(name, rawArguments, ctx) {
      const dynamic = extra();
      if (dynamic.names.includes(name)) return dynamic.execute(name, rawArguments, ctx);
      if (core.names.includes(name)) return core.execute(name, rawArguments, ctx);
      // Named by neither: the error lists what this session offers, from both parts.
      const offered = [...core.definitions(ctx), ...dynamic.definitions(ctx)].map((d) => d.name);
      return Promise.resolve(unknownToolCall(name, offered));
    },
  };
}
