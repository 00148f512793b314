/** The model's tool-call argument text, read once for the registry, the live view and replay. */
import { errorMessage } from "../errors.ts";

/** The argument text parsed as JSON, or why it is not JSON. */
export type ParsedArguments = { ok: true; value: unknown } | { ok: false; error: string };

/** Parses raw tool-call arguments: `""` (some models send it for no arguments) means `{}`. */
export function parseToolArguments(raw: string): ParsedArguments {
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

/** The arguments as a value for display (`rawInput`): parsed when they are JSON, else the text. */
export function parseRawInput(raw: string): unknown {
  const parsed = parseToolArguments(raw);
  return parsed.ok ? parsed.value : raw;
}
