/**
 * Errors the file checks raise: a refused path, a file dsh cannot handle, a failed file system
 * call; the tool registry turns each into an `isError` result for the model.
 */
import { errorCode } from "../error-code.ts";
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

/** A file system call failed for a reason the model can act on: permissions, a full disk. */
export class FileSystemError extends DshError<"file_system"> {
  constructor(message: string, cause: unknown) {
    super("file_system", message, { cause });
  }
}

const REASONS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  ENAMETOOLONG: "a name is too long",
  EBUSY: "resource busy",
  EIO: "input/output error",
  ETXTBSY: "the file is a running program",
  ENOENT: "a directory on the way no longer exists",
};

/**
 * `error` as a `FileSystemError` naming what failed (never the internal path it failed on),
 * when it is a system error the model can understand; otherwise `error` unchanged.
 */
export function describeFileError(error: unknown, action: string, shownPath: string): unknown {
  const code = errorCode(error);
  const reason = code === undefined ? undefined : REASONS[code];
  if (reason === undefined || error instanceof DshError) return error;
  return new FileSystemError(`cannot ${action} ${shownPath}: ${reason} (${code})`, error);
}
