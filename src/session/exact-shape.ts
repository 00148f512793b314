/**
 * A quick yes for values that already are exactly what a valibot schema outputs. Reading a long
 * log runs the schema once per line, and most of that time goes to building an output copy and
 * issue bookkeeping for lines that need neither. The check is built from the schema itself, so
 * the schema stays the only definition of a line.
 *
 * The check is sound, not complete: `true` means valibot would accept the value and output an
 * equal one (no unknown keys to strip, no defaults or transforms); `false` only means "ask
 * valibot", which then accepts, cleans or rejects the value with its own message. Any schema
 * part the check does not know makes it answer `false`.
 */
import type * as v from "valibot";

/** Whether a value can be used as the schema's output as it is. */
export type ExactShapeCheck = (value: unknown) => boolean;

/** Schema parts as valibot exposes them at run time (only what the check reads). */
interface SchemaNode {
  readonly type: string;
  readonly kind?: string;
  readonly pipe?: readonly SchemaNode[];
  readonly entries?: Readonly<Record<string, SchemaNode>>;
  readonly options?: readonly unknown[];
  readonly key?: string;
  readonly wrapped?: SchemaNode;
  readonly item?: SchemaNode;
  readonly literal?: unknown;
  readonly requirement?: unknown;
  readonly default?: unknown;
  readonly fallback?: unknown;
}

const never: ExactShapeCheck = () => false;

/** Builds the check for `schema`. */
export function exactShapeCheck(schema: v.GenericSchema): ExactShapeCheck {
  return compile(schema as unknown as SchemaNode);
}

function compile(node: SchemaNode): ExactShapeCheck {
  // A fallback replaces a bad value with another: the output is not the input.
  if (node.fallback !== undefined) return never;
  const base = compileBase(node);
  if (node.pipe === undefined) return base;
  const [, ...actions] = node.pipe;
  const checks: ExactShapeCheck[] = [];
  for (const action of actions) {
    const check = compileAction(action);
    if (check === undefined) return never;
    checks.push(check);
  }
  return (value) => base(value) && checks.every((check) => check(value));
}

/** Pipe actions that only validate; anything that transforms is unknown here. */
function compileAction(action: SchemaNode): ExactShapeCheck | undefined {
  const requirement = action.requirement;
  switch (action.type) {
    case "integer":
      return (value) => Number.isInteger(value);
    case "min_value":
      return typeof requirement === "number"
        ? (value) => (value as number) >= requirement
        : undefined;
    default:
      return undefined;
  }
}

function compileBase(node: SchemaNode): ExactShapeCheck {
  switch (node.type) {
    case "string":
      return (value) => typeof value === "string";
    case "number":
      return (value) => typeof value === "number" && !Number.isNaN(value);
    case "boolean":
      return (value) => typeof value === "boolean";
    case "literal": {
      const literal = node.literal;
      return (value) => value === literal;
    }
    case "picklist": {
      const options = node.options ?? [];
      return (value) => options.includes(value);
    }
    case "nullable":
    case "optional": {
      if (node.default !== undefined || node.wrapped === undefined) return never;
      const wrapped = compile(node.wrapped);
      // `undefined` never comes out of JSON; a missing optional key is the object's business.
      return node.type === "nullable" ? (value) => value === null || wrapped(value) : wrapped;
    }
    case "array": {
      if (node.item === undefined) return never;
      const item = compile(node.item);
      return (value) => Array.isArray(value) && value.every(item);
    }
    case "object":
      return compileObject(node);
    case "variant":
      return compileVariant(node);
    default:
      return never;
  }
}

function compileObject(node: SchemaNode): ExactShapeCheck {
  const fields = new Map(
    Object.entries(node.entries ?? {}).map(([key, schema]) => [
      key,
      {
        // A missing key with a default is filled in by valibot: only a plain optional may be absent.
        optional: schema.type === "optional" && schema.default === undefined,
        check: compile(schema),
      },
    ]),
  );
  const required = [...fields.values()].filter((field) => !field.optional).length;
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    // One pass over the value's keys: each must be known (valibot drops the others, so such a
    // value is not its own output) and valid; every required key must be among them.
    let present = 0;
    for (const key in record) {
      const field = fields.get(key);
      if (field === undefined || !Object.hasOwn(record, key) || !field.check(record[key])) {
        return false;
      }
      if (!field.optional) present += 1;
    }
    return present === required;
  };
}

/** A variant of objects told apart by a literal at `key`; nested variants are unknown here. */
function compileVariant(node: SchemaNode): ExactShapeCheck {
  const key = node.key;
  if (key === undefined) return never;
  const byTag = new Map<unknown, ExactShapeCheck>();
  for (const option of (node.options ?? []) as SchemaNode[]) {
    const tag = option.entries?.[key];
    if (option.type !== "object" || tag?.type !== "literal" || byTag.has(tag.literal)) {
      return never;
    }
    byTag.set(tag.literal, compile(option));
  }
  return (value) => {
    if (typeof value !== "object" || value === null) return false;
    const check = byTag.get((value as Record<string, unknown>)[key]);
    return check?.(value) === true;
  };
}
