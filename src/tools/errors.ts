/** Errors the file tools raise; the registry turns each into an `isError` result for the model. */
import { DshError } from "../errors.ts";

/** A path the policy refuses: protected name, credential store, hard link, symlink escape. */
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

/** An `old_string` that matches zero times, or more than once without `replace_all`. */
export class EditMismatchError extends DshError<"edit_mismatch"> {
  constructor(message: string, data?: Record<string, unknown>) {
    super("edit_mismatch", message, { data });
  }
}
