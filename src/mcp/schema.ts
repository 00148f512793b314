/**
 * An MCP tool's input schema made acceptable to DeepSeek and the OpenAI-compatible servers
 * (vLLM, llama.cpp, Ollama): an object at the root, local `$ref`s inlined, and only the
 * keywords their schema converters understand. What is dropped only loosens the schema; the
 * server still validates the arguments it receives.
 */

type Json = Record<string, unknown>;

/** Keywords kept; everything else (`$schema`, `$id`, `examples`, `format`, ...) is dropped. */
const KEPT = new Set([
  "type",
  "description",
  "title",
  "properties",
  "required",
  "items",
  "enum",
  "const",
  "default",
  "anyOf",
  "oneOf",
  "allOf",
  "additionalProperties",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "nullable",
]);

/** Deeper than this a schema is cut to `{}` (anything): no model needs it, and it bounds work. */
const MAX_DEPTH = 24;

/** The root as the model is offered it: always `{ type: "object", properties: {...} }`. */
export function sanitizeInputSchema(schema: unknown): Json {
  const root = isObject(schema) ? schema : {};
  const defs = { ...asObject(root.definitions), ...asObject(root.$defs) };
  const clean = sanitize(root, defs, 0, new Set());
  const properties = isObject(clean.properties) ? clean.properties : {};
  const out: Json = { ...clean, type: "object", properties };
  for (const key of ["anyOf", "oneOf", "allOf", "items", "enum", "const"]) delete out[key];
  return out;
}

function sanitize(node: Json, defs: Json, depth: number, seen: ReadonlySet<string>): Json {
  if (depth > MAX_DEPTH) return {};
  const ref = node.$ref;
  if (typeof ref === "string") {
    const target = resolveRef(ref, defs);
    // A cycle (or a ref dsh cannot resolve) becomes "anything": the server still validates.
    if (target === undefined || seen.has(ref)) return pickDescription(node);
    return {
      ...sanitize(target, defs, depth + 1, new Set([...seen, ref])),
      ...pickDescription(node),
    };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEPT.has(key)) continue;
    const kept = keyword(key, value, defs, depth, seen);
    if (kept !== undefined) out[key] = kept;
  }
  if (Array.isArray(out.required) && isObject(out.properties)) {
    const properties = out.properties;
    out.required = out.required.filter((name) => typeof name === "string" && name in properties);
  }
  return out;
}

function keyword(
  key: string,
  value: unknown,
  defs: Json,
  depth: number,
  seen: ReadonlySet<string>,
): unknown {
  const sub = (schema: unknown) =>
    isObject(schema) ? sanitize(schema, defs, depth + 1, seen) : {};
  switch (key) {
    case "properties":
      if (!isObject(value)) return undefined;
      return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, sub(schema)]));
    case "items":
      return Array.isArray(value) ? sub(value[0]) : sub(value);
    case "anyOf":
    case "oneOf":
    case "allOf":
      return Array.isArray(value) && value.length > 0 ? value.map(sub) : undefined;
    case "additionalProperties":
      return typeof value === "boolean" ? value : sub(value);
    case "required":
      return Array.isArray(value) ? value.filter((name) => typeof name === "string") : undefined;
    case "description":
    case "title":
    case "pattern":
      return typeof value === "string" ? value : undefined;
    case "type":
      return typeof value === "string" || Array.isArray(value) ? value : undefined;
    default:
      return value;
  }
}

/** `#/$defs/Name` or `#/definitions/Name`; other refs (remote, deep pointers) are not followed. */
function resolveRef(ref: string, defs: Json): Json | undefined {
  const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  const target = match?.[1] === undefined ? undefined : defs[decodePointer(match[1])];
  return isObject(target) ? target : undefined;
}

function decodePointer(part: string): string {
  return part.replace(/~1/g, "/").replace(/~0/g, "~");
}

function pickDescription(node: Json): Json {
  return typeof node.description === "string" ? { description: node.description } : {};
}

function asObject(value: unknown): Json {
  return isObject(value) ? value : {};
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
