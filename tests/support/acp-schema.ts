/**
 * Validates every message an ACP agent writes against the SDK's stable v1 JSON schema, per
 * method (acp.md §13): the root schema accepts almost anything, so each message is matched to
 * the `$defs` entry its method names. Also flags unknown top-level keys (typos in optional
 * fields pass the schema) and non-JSON-RPC lines.
 */
import schema from "@agentclientprotocol/sdk/schema/v1/schema.json" with { type: "json" };
import unstableSchema from "@agentclientprotocol/sdk/schema/v1/schema.unstable.json" with {
  type: "json",
};
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import * as v from "valibot";

const Node = v.looseObject({
  $ref: v.optional(v.string()),
  properties: v.optional(v.record(v.string(), v.unknown())),
  allOf: v.optional(v.array(v.unknown())),
  oneOf: v.optional(v.array(v.unknown())),
  anyOf: v.optional(v.array(v.unknown())),
  "x-side": v.optional(v.string()),
  "x-method": v.optional(v.string()),
});
type Node = v.InferOutput<typeof Node>;

const Message = v.looseObject({
  jsonrpc: v.optional(v.unknown()),
  id: v.optional(v.union([v.string(), v.number(), v.null()])),
  method: v.optional(v.string()),
  params: v.optional(v.unknown()),
  result: v.optional(v.unknown()),
  error: v.optional(v.unknown()),
});

const JsonObject = v.record(v.string(), v.unknown());

const defs = v.parse(v.record(v.string(), Node), schema.$defs);

/** Methods dsh serves from the unstable schema, with the def their responses are checked against. */
const UNSTABLE_RESPONSES: Readonly<Record<string, string>> = {
  "session/fork": "ForkSessionResponse",
};

function createAjv() {
  const ajv = new Ajv2020({
    strict: true,
    strictTypes: false,
    discriminator: true,
    allErrors: true,
  });
  addFormats(ajv);
  for (const keyword of [
    "x-side",
    "x-method",
    "x-deserialize-default-on-error",
    "x-deserialize-default-on-null",
    "x-deserialize-skip-invalid-items",
    "x-docs-ignore",
  ]) {
    ajv.addKeyword(keyword);
  }
  const int = (min: number, max: number) => ({
    type: "number" as const,
    validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
  });
  ajv.addFormat("uint16", int(0, 65535));
  ajv.addFormat("uint32", int(0, 2 ** 32 - 1));
  ajv.addFormat("uint64", int(0, Number.MAX_SAFE_INTEGER));
  ajv.addFormat("int32", int(-(2 ** 31), 2 ** 31 - 1));
  ajv.addFormat("int64", int(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  ajv.addFormat("double", { type: "number", validate: Number.isFinite });
  ajv.addSchema(schema, "acp");
  ajv.addSchema({ ...unstableSchema, $id: "acp-unstable" }, "acp-unstable");
  return ajv;
}

let shared: ReturnType<typeof createAjv> | undefined;

/** The def named by method and side, e.g. ("session/prompt", "agent", "Response"). */
function defFor(method: string, side: string, suffix: string): string | undefined {
  for (const [name, node] of Object.entries(defs)) {
    if (node["x-method"] === method && node["x-side"] === side && name.endsWith(suffix))
      return name;
  }
  return undefined;
}

function resolve(node: unknown): Node | undefined {
  const parsed = v.safeParse(Node, node);
  if (!parsed.success) return undefined;
  const ref = parsed.output.$ref;
  if (ref === undefined) return parsed.output;
  return defs[ref.replace("#/$defs/", "")];
}

/** Property names a node allows for `value`, following refs, allOf and tagged variants. */
function knownKeys(
  node: unknown,
  value: { readonly [key: string]: unknown },
  into = new Set<string>(),
): Set<string> {
  const n = resolve(node);
  if (n === undefined) return into;
  for (const key of Object.keys(n.properties ?? {})) into.add(key);
  for (const part of n.allOf ?? []) knownKeys(part, value, into);
  for (const variant of [...(n.oneOf ?? []), ...(n.anyOf ?? [])]) {
    const r = resolve(variant);
    const tags = Object.entries(r?.properties ?? {}).filter(([, p]) =>
      v.is(v.object({ const: v.string() }), p),
    );
    const matches = tags.every(([key, p]) =>
      v.is(v.object({ const: v.literal(String(value[key])) }), p),
    );
    // A tagged variant counts only when the value carries its tag; untagged ones (scopes) always.
    if (tags.length === 0 || matches) knownKeys(variant, value, into);
  }
  return into;
}

function unknownKeys(def: string, value: unknown, where: string): string[] {
  const object = v.safeParse(JsonObject, value);
  if (!object.success) return [];
  const allowed = knownKeys({ $ref: `#/$defs/${def}` }, object.output);
  if (allowed.size === 0) return [];
  return Object.keys(object.output)
    .filter((key) => !allowed.has(key))
    .map((key) => `${where}: unknown key ${JSON.stringify(key)} for ${def}`);
}

/** Checks one direction of traffic; remembers the other direction's request methods. */
export interface AcpWireValidator {
  /** Records a client → agent message, so responses can be matched to their method. */
  inbound(message: unknown): void;
  /** Problems with one agent → client message ([] when valid). */
  outbound(message: unknown): string[];
}

export function createAcpValidator(): AcpWireValidator {
  const ajv = (shared ??= createAjv());
  const methods = new Map<string | number, string>();

  const check = (def: string, value: unknown, where: string): string[] => {
    const validate = ajv.getSchema(`acp#/$defs/${def}`);
    if (validate === undefined) return [`${where}: no schema def ${def}`];
    if (validate(value)) return unknownKeys(def, value, where);
    return [
      `${where}: not a valid ${def}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 500)}`,
    ];
  };

  return {
    inbound(message) {
      const m = v.safeParse(Message, message);
      if (m.success && m.output.method !== undefined && m.output.id != null)
        methods.set(m.output.id, m.output.method);
    },
    outbound(message) {
      const parsed = v.safeParse(Message, message);
      if (!parsed.success) return [`not a JSON-RPC object: ${JSON.stringify(message)}`];
      const m = parsed.output;
      if (m.jsonrpc !== "2.0") return [`jsonrpc is not "2.0": ${JSON.stringify(message)}`];
      if (m.method !== undefined) {
        const where = m.method;
        if (m.method.startsWith("_")) return [];
        const isRequest = m.id !== undefined;
        const def = isRequest
          ? defFor(m.method, "client", "Request")
          : (defFor(m.method, "client", "Notification") ??
            defFor(m.method, "protocol", "Notification"));
        if (def === undefined)
          return [`${where}: no such agent → client ${isRequest ? "request" : "notification"}`];
        const problems = check(def, m.params, where);
        if (def === "SessionNotification") {
          const update = v.safeParse(v.object({ update: v.unknown() }), m.params);
          if (update.success)
            problems.push(...unknownKeys("SessionUpdate", update.output.update, `${where} update`));
        }
        return problems;
      }
      if (m.id === undefined)
        return [`neither request, notification nor response: ${JSON.stringify(message)}`];
      if (m.error !== undefined) return check("Error", m.error, `error response ${String(m.id)}`);
      const method = m.id === null ? undefined : methods.get(m.id);
      if (method === undefined) return [`response to unknown request id ${String(m.id)}`];
      const unstable = UNSTABLE_RESPONSES[method];
      if (unstable !== undefined) {
        const validate = ajv.getSchema(`acp-unstable#/$defs/${unstable}`);
        if (validate === undefined) return [`${method}: no unstable schema def ${unstable}`];
        return validate(m.result) ? [] : [`${method} response: ${ajv.errorsText(validate.errors)}`];
      }
      const def = defFor(method, "agent", "Response");
      if (def === undefined) return method.startsWith("_") ? [] : [`${method}: no response def`];
      return check(def, m.result, `${method} response`);
    },
  };
}

/** Problems with `updates` sent as `session/update` notifications ([] when all are valid). */
export function updateProblems(updates: readonly unknown[]): string[] {
  const validator = createAcpValidator();
  return updates.flatMap((update) =>
    validator.outbound({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update },
    }),
  );
}
