/**
 * `session/fork` (ACP's unstable fork, served beside the stable methods): its params, checked
 * with valibot since the stable SDK entry point has no schema for them.
 */
import type * as acp from "@agentclientprotocol/sdk";
import * as v from "valibot";
import { InvalidInputError } from "../errors.ts";

const Pair = v.object({ name: v.string(), value: v.string() });
const McpServer = v.union([
  v.object({
    type: v.picklist(["http", "sse"]),
    name: v.string(),
    url: v.string(),
    headers: v.array(Pair),
  }),
  v.object({
    name: v.string(),
    command: v.string(),
    args: v.array(v.string()),
    env: v.array(Pair),
  }),
]);

export const ForkSessionRequest = v.object({
  sessionId: v.string(),
  cwd: v.string(),
  additionalDirectories: v.optional(v.nullable(v.array(v.string()))),
  mcpServers: v.optional(v.nullable(v.array(McpServer))),
});
export type ForkSessionRequest = Omit<v.InferOutput<typeof ForkSessionRequest>, "mcpServers"> & {
  readonly mcpServers?: readonly acp.McpServer[] | null;
};

/** The params, or InvalidInputError (answered -32602) naming what is wrong. */
export function parseForkRequest(params: unknown): ForkSessionRequest {
  const parsed = v.safeParse(ForkSessionRequest, params);
  if (parsed.success) return parsed.output as ForkSessionRequest;
  const issue = parsed.issues[0];
  const where = issue.path?.map((item) => String(item.key)).join(".") ?? "params";
  throw new InvalidInputError(`invalid session/fork params: ${where}: ${issue.message}`);
}
