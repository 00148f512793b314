/**
 * The base of every error dsh raises on purpose. Code branches on `code` or `instanceof`,
 * never on `message`; each surface decides how a code renders (JSON-RPC error, tool result
 * text, one-line CLI message).
 */
export class DshError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly data: Readonly<Record<string, unknown>>;

  constructor(
    code: Code,
    message: string,
    options: { data?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.data = options.data ?? {};
  }
}

/** A caller passed something that can never be valid (bad id, relative cwd, unknown option). */
export class InvalidInputError extends DshError<"invalid_input"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("invalid_input", message, { data });
  }
}

/** The named thing does not exist (session id, file). */
export class NotFoundError extends DshError<"not_found"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("not_found", message, { data });
  }
}

/** The thing exists but is in use or in a state that forbids the operation. */
export class ConflictError extends DshError<"conflict"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("conflict", message, { data });
  }
}

/** Turns anything thrown into a one-line message without losing a DshError's own text. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The most of a caller's value an error message quotes. */
const QUOTED_LENGTH = 200;

/** Input quoted back in an error, kept short so the message stays readable. */
export function quoted(text: string): string {
  return text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text;
}
