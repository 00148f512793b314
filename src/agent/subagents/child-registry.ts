/**
 * A subagent's view of the session's tools: only those its kind allows, in the session's
 * order (so every subagent of a kind sends the same tool list, and its requests share a
 * cached prefix), and none of the calls its kind refuses.
 */
import { parseRawInput } from "../../tools/raw-arguments.ts";
import type { ToolRegistry } from "../../tools/types.ts";
import type { SubagentKind } from "./kinds.ts";

export function childRegistry(session: ToolRegistry, kind: SubagentKind): ToolRegistry {
  let seen: ReturnType<ToolRegistry["definitions"]> | undefined;
  let kept: ReturnType<ToolRegistry["definitions"]> = [];
  const allowed = () => session.names.filter((name) => kind.allows(name));
  return {
    get names() {
      return allowed();
    },
    definitions(ctx) {
      const all = session.definitions(ctx);
      // The same array while the session's list is the same: the same bytes on every request.
      if (all !== seen) {
        seen = all;
        kept = all.filter((definition) => kind.allows(definition.name));
      }
      return kept;
    },
    presentCall: (name, rawArguments, ctx) => session.presentCall(name, rawArguments, ctx),
    async execute(name, rawArguments, ctx) {
      const intent = session.presentCall(name, rawArguments, ctx);
      if (!kind.allows(name) || !session.names.includes(name)) {
        const known = allowed().join(", ") || "none";
        const output = `unknown tool "${name}" for a ${kind.name} task; its tools: ${known}`;
        return { result: { isError: true, output }, intent };
      }
      const refusal = kind.refuse?.(name, parseRawInput(rawArguments));
      if (refusal !== undefined) return { result: { isError: true, output: refusal }, intent };
      return session.execute(name, rawArguments, ctx);
    },
  };
}
