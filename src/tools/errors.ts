/** Errors the file tools raise; the registry turns each into an `isError` result for the model. */
import { DshError } from "../errors.ts";

/** A path the policy refuses: a protected name, a credential file, a hard link, a symlink escape. */
export class PathRefusedError extends DshError<"path_refused"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("path_refused", message, { data });
  }
}

/** A file the tool cannot handle: a directory, a binary file, a file over the size cap. */
export class UnsupportedFileError extends DshError<"unsupported_file"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("unsupported_file", message, { data });
  }
}

/** An `edit_file` whose `old_string` matches zero times, or more than once without `replace_all`. */
export class EditMismatchError extends DshError<"edit_mismatch"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("edit_mismatch", message, { data });
  }
}
