/** Reading the `code` of a Node-style system error (`ENOENT`, `EEXIST`, `ESRCH`, ...). */

/** The string `code` of a Node-style system error, or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
