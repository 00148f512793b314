/**
 * Generated protocol input for the fuzz loop: one line per input, each with what dsh owes it.
 * Kinds cover broken framing (garbage, truncated JSON, invalid UTF-8, deep nesting, huge
 * lines), broken envelopes, and well-formed requests with hostile params for every method dsh
 * serves. No input may start real work (every session id is made up, no cwd is a directory).
 */
import type { Random } from "./soak.ts";

/** What dsh must answer to one input. */
export type Owed =
  /** Exactly one response carrying this id. */
  | { readonly type: "response"; readonly id: number }
  /** Exactly one error with a null id. */
  | { readonly type: "null-error" }
  /** Nothing (a notification, a stray response, a blank line). */
  | { readonly type: "nothing" };

export interface FuzzInput {
  readonly kind: string;
  readonly bytes: Uint8Array;
  readonly owed: Owed;
}

const METHODS = [
  "initialize",
  "session/new",
  "session/load",
  "session/resume",
  "session/list",
  "session/close",
  "session/prompt",
  "session/set_config_option",
  "session/set_mode",
  "authenticate",
  "no/such/method",
  "_dsh/unknown",
  "",
];
const NOTIFICATIONS = ["session/cancel", "$/cancel_request", "no/such/notification", "_x"];
const encoder = new TextEncoder();

/** Builds the generator of one run; ids start high so they never meet the test's own. */
export function createFuzzInputs(random: Random) {
  let nextId = 1_000_000;

  const text = (max: number): string => {
    const alphabet = ["a", "Z", " ", "/", "\\", '"', "é", "\u2028", "\u0000", "😀", "{", "]", "\t"];
    return Array.from({ length: random.int(0, max) }, () => random.pick(alphabet)).join("");
  };
  const value = (depth: number): unknown => {
    const roll = random.int(0, depth > 4 ? 5 : 8);
    switch (roll) {
      case 0:
        return null;
      case 1:
        return random.chance(0.5);
      case 2:
        return random.pick([0, -1, 1e308, -0, 2 ** 53 + 1, 3.14, 42]);
      case 3:
      case 4:
        return text(20);
      case 5:
        return random.chance(0.005) ? "x".repeat(random.int(10_000, 200_000)) : text(5);
      case 6:
        return Array.from({ length: random.int(0, 4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: random.int(0, 4) }, () => [
            random.pick(["sessionId", "cwd", "prompt", "mcpServers", "_meta", text(6)]),
            value(depth + 1),
          ]),
        );
    }
  };
  /** Params shaped like a method's, with any field replaced by something hostile. */
  const params = (): unknown => {
    if (random.chance(0.2)) return value(0);
    const fields: Record<string, unknown> = {
      sessionId: random.chance(0.7) ? `sess_${text(8)}` : value(2),
      cwd: random.pick(["relative/dir", "", "/no/such/dir/at/all", 42, null, text(10)]),
      mcpServers: random.chance(0.8) ? [] : value(2),
      prompt: random.chance(0.5) ? [{ type: "text", text: text(30) }] : value(2),
      protocolVersion: random.pick([1, 0, 99, "1", null]),
      configId: random.pick(["model", "permission", "effort", text(5)]),
      value: value(2),
    };
    return Object.fromEntries(Object.entries(fields).filter(() => random.chance(0.6)));
  };
  const line = (kind: string, body: string | Uint8Array, owed: Owed): FuzzInput => {
    const bytes = typeof body === "string" ? encoder.encode(body) : body;
    const ending = random.pick(["\n", "\n", "\n", "\r\n"]);
    return { kind, bytes: concat([bytes, encoder.encode(ending)]), owed };
  };
  const request = () => {
    const id = nextId++;
    const message = { jsonrpc: "2.0", id, method: random.pick(METHODS), params: params() };
    if (random.chance(0.3)) delete (message as { params?: unknown }).params;
    return { id, json: JSON.stringify(message) };
  };

  const kinds: readonly (() => FuzzInput)[] = [
    () => {
      const { id, json } = request();
      return line("request", json, { type: "response", id });
    },
    () => {
      const { id, json } = request();
      return line("request", json, { type: "response", id });
    },
    () => {
      const params = random.chance(0.5) ? { sessionId: `sess_${text(6)}` } : value(1);
      const message = { jsonrpc: "2.0", method: random.pick(NOTIFICATIONS), params };
      return line("notification", JSON.stringify(message), { type: "nothing" });
    },
    () => {
      const id = random.pick<unknown>([nextId++, `r${text(4)}`, null]);
      const answer = random.pick<Record<string, unknown>>([
        { result: value(1) },
        { error: { code: -1, message: text(10) } },
        { error: value(1) },
        {},
      ]);
      return line("stray response", JSON.stringify({ jsonrpc: "2.0", id, ...answer }), {
        type: "nothing",
      });
    },
    () => {
      const id = nextId++;
      const broken = random.pick<Record<string, unknown>>([
        { jsonrpc: "1.0", id, method: "session/list" },
        { id, method: "session/list" },
        { jsonrpc: "2.0", id: { id }, method: "session/list" },
        { jsonrpc: "2.0", id, method: 7 },
        { jsonrpc: "2.0", id: [id], method: "session/list" },
        { jsonrpc: "2.0", params: value(1) },
        { jsonrpc: 2, id, method: "session/list" },
      ]);
      return line("bad envelope", JSON.stringify(broken), { type: "null-error" });
    },
    () => {
      const json = random.pick<unknown>([42, "text", true, null, [], [value(1)], { a: value(1) }]);
      return line("not a message", JSON.stringify(json), { type: "null-error" });
    },
    () => {
      const { json } = request();
      return line("truncated", json.slice(0, random.int(1, json.length - 1)), {
        type: "null-error",
      });
    },
    () =>
      line(
        "garbage",
        `${random.pick(["{", "[", "x", "-", "tru"])}${text(40).replaceAll("}", "")}z`,
        {
          type: "null-error",
        },
      ),
    () => {
      // Mostly just past the limit; now and then as deep as the line that once stopped dsh.
      const depth = random.chance(0.05) ? random.int(10_000, 50_000) : random.int(129, 1_000);
      const open = random.pick(['{"a":', "[", '{"jsonrpc":"2.0","method":"x","params":']);
      const close = open === "[" ? "]" : "}";
      const inner = open === "[" ? "" : "1";
      return line("deep", `${open.repeat(depth)}${inner}${close.repeat(depth)}`, {
        type: "null-error",
      });
    },
    () => {
      const id = nextId++;
      const bad = Uint8Array.from(random.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xfe, 0xff]]));
      const inside = random.chance(0.5);
      const body = inside
        ? concat([
            encoder.encode(
              `{"jsonrpc":"2.0","id":${id},"method":"session/list","params":{"cwd":"/`,
            ),
            bad,
            encoder.encode('"}}'),
          ])
        : concat([encoder.encode(`{"jsonrpc":"2.0","id":${id},`), bad, encoder.encode("}")]);
      return line(
        "invalid utf-8",
        body,
        inside ? { type: "response", id } : { type: "null-error" },
      );
    },
    () => line("blank", random.pick(["", " ", "\t", "\r", "   \t "]), { type: "nothing" }),
  ];

  return {
    /** The next input; the same seed gives the same sequence. */
    next: (): FuzzInput => random.pick(kinds)(),
  };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
