/**
 * Reads a protocol's opening bytes off a socket (an HTTP request head, a SOCKS5 greeting)
 * before the socket is handed over to plain piping: bytes arrive in any split, so each step
 * parses what has arrived so far and asks for more until it has a whole message.
 */
import type { Socket } from "node:net";

/** A parse step: the value and the bytes it used, `more` for a partial message, or an error. */
export type ParseStep<T> =
  | { readonly value: T; readonly used: number }
  | "more"
  | { readonly error: string };

export interface SocketReader {
  /** The next message; rejects when the socket ends or errors first, or `limit` bytes pass. */
  next<T>(parse: (buffer: Buffer) => ParseStep<T>, limit: number): Promise<T>;
  /** Stops reading; returns the bytes read past the last message. The socket stays paused. */
  release(): Buffer;
}

/** Thrown by `next` for a message that cannot be parsed; the text is safe to show. */
export class ProtocolError extends Error {}

export function createSocketReader(socket: Socket): SocketReader {
  let buffered: Buffer = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  let ended: Error | undefined;
  const onData = (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    wake?.();
  };
  const onEnd = () => {
    ended ??= new ProtocolError("the connection closed early");
    wake?.();
  };
  const onError = (error: Error) => {
    ended ??= error;
    wake?.();
  };
  socket.on("data", onData);
  socket.on("end", onEnd);
  socket.on("error", onError);
  return {
    async next(parse, limit) {
      for (;;) {
        if (buffered.length > 0) {
          const step = parse(buffered);
          if (step !== "more") {
            if ("error" in step) throw new ProtocolError(step.error);
            buffered = buffered.subarray(step.used);
            return step.value;
          }
          if (buffered.length >= limit) throw new ProtocolError("the request is too large");
        }
        if (ended !== undefined) throw ended;
        const arrived = Promise.withResolvers<void>();
        wake = arrived.resolve;
        socket.resume();
        await arrived.promise;
        wake = undefined;
      }
    },
    release() {
      socket.pause();
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onError);
      const rest = buffered;
      buffered = Buffer.alloc(0);
      return rest;
    },
  };
}
