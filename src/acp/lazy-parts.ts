/** Loads `session-parts.ts` once, at the first session that opens. */
let parts: Promise<typeof import("./session-parts.ts")> | undefined;

export function sessionParts(): Promise<typeof import("./session-parts.ts")> {
  parts ??= import("./session-parts.ts");
  return parts;
}
