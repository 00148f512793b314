/**
 * dsh's typed errors → JSON-RPC errors. Every handler funnels what it throws through
 * `toRequestError`, so a code is mapped in one place and nothing leaks as a bare -32603.
 */
import * as acp from "@agentclientprotocol/sdk";
import { DshError, errorMessage, quoted } from "../errors.ts";
import type { LoggedError } from "../session/events.ts";

/** What the failing request was about, for errors that name it. */
export interface ErrorSubject {
  readonly sessionId?: string;
}

/** Maps anything thrown by a handler to the error response the client sees. */
export function toRequestError(error: unknown, subject: ErrorSubject = {}): acp.RequestError {
  if (error instanceof acp.RequestError) return error;
  if (!(error instanceof DshError)) {
    return acp.RequestError.internalError({ details: errorMessage(error) }, errorMessage(error));
  }
  const data = { ...error.data, code: error.code, message: error.message };
  switch (error.code) {
    case "invalid_input":
      return acp.RequestError.invalidParams(data, error.message);
    case "not_found": {
      const scoped =
        subject.sessionId === undefined ? data : { ...data, sessionId: quoted(subject.sessionId) };
      return new acp.RequestError(-32002, `Resource not found: ${error.message}`, scoped);
    }
    case "conflict":
      return acp.RequestError.invalidRequest(data, error.message);
    default:
      return acp.RequestError.internalError(data, error.message);
  }
}

/**
 * The error a prompt RPC rejects with when its turn ended `error`: the typed error's own
 * message (an auth failure says so), its code in `data`.
 */
export function turnError(error: LoggedError): acp.RequestError {
  return new acp.RequestError(-32603, error.message, { code: error.code, message: error.message });
}
