/**
 * Session ids: dsh makes them (UUIDv7, so they sort by creation) and checks them on every use,
 * because an id becomes a file name: anything but a lowercase UUID is an error, never a path.
 */
import { join } from "node:path";
import { InvalidInputError } from "../errors.ts";

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A fresh lowercase UUIDv7; later ids sort after earlier ones. */
export function newSessionId(): string {
  return Bun.randomUUIDv7();
}

/** Whether `id` is a well-formed session id (a lowercase UUID). */
export function isSessionId(id: string): boolean {
  return typeof id === "string" && SESSION_ID.test(id);
}

/**
 * Throws InvalidInputError unless `id` is exactly a lowercase UUID. The message quotes at most
 * a short, escaped prefix of the bad id.
 */
export function assertSessionId(id: string): void {
  if (isSessionId(id)) return;
  const shown = typeof id === "string" ? JSON.stringify(id.slice(0, 40)) : typeof id;
  throw new InvalidInputError(`invalid session id ${shown}: expected a lowercase UUID`, {
    field: "sessionId",
  });
}

/** The sessions directory under a dsh home. */
export function sessionsDir(home: string): string {
  return join(home, "sessions");
}

/** `<home>/sessions/<id>.jsonl`, after validating `id` (InvalidInputError otherwise). */
export function sessionPath(home: string, id: string): string {
  assertSessionId(id);
  return join(sessionsDir(home), `${id}.jsonl`);
}

/** `<home>/sessions/<id>.lock`, the session's writer lock, after validating `id`. */
export function sessionLockPath(home: string, id: string): string {
  assertSessionId(id);
  return join(sessionsDir(home), `${id}.lock`);
}
