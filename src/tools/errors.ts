/** Errors tools raise beyond the file checks'; the registry turns each into an `isError` result. */
import { DshError } from "../errors.ts";

/** An `old_string` that matches zero times, or more than once without `replace_all`. */
export class EditMismatchError extends DshError<"edit_mismatch"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("edit_mismatch", message, { data });
  }
}

/** Work that ran past its time budget and was stopped, e.g. a regex that backtracks for long. */
export class TimeLimitError extends DshError<"time_limit"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("time_limit", message, { data });
  }
}
