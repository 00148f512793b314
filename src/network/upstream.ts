/**
 * Connections out of dsh to a checked destination, and the byte pipe between two sockets.
 * Only IP addresses are ever connected to, so no lookup happens between the check and the
 * connect.
 */
import { type Socket, connect } from "node:net";
import type { IpAddress } from "./address.ts";

/** How long one address may take to accept a connection. */
const CONNECT_TIMEOUT_MS = 15_000;

export type Upstream =
  | { readonly ok: true; readonly socket: Socket }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** Connects to the first of `addresses` that accepts on `port`, trying them in order. */
export async function connectFirst(
  addresses: readonly IpAddress[],
  port: number,
  signal: AbortSignal,
): Promise<Upstream> {
  let last: Upstream = { ok: false, code: "ENOADDRESS", message: "no address to connect to" };
  for (const address of addresses) {
    if (signal.aborted) return { ok: false, code: "ECANCELED", message: "cancelled" };
    last = await connectOne(address, port, signal);
    if (last.ok) return last;
  }
  return last;
}

function connectOne(address: IpAddress, port: number, signal: AbortSignal): Promise<Upstream> {
  const { promise, resolve } = Promise.withResolvers<Upstream>();
  const socket = connect({ host: address.text, port, family: address.family });
  const fail = (code: string, message: string) => {
    cleanup();
    socket.destroy();
    resolve({ ok: false, code, message });
  };
  const onError = (error: NodeJS.ErrnoException) =>
    fail(error.code ?? "ECONNECT", `${address.text}:${port}: ${error.code ?? error.message}`);
  const onAbort = () => fail("ECANCELED", "cancelled");
  const timer = setTimeout(
    () =>
      fail("ETIMEDOUT", `${address.text}:${port}: no answer within ${CONNECT_TIMEOUT_MS / 1000} s`),
    CONNECT_TIMEOUT_MS,
  );
  const cleanup = () => {
    clearTimeout(timer);
    socket.off("error", onError);
    signal.removeEventListener("abort", onAbort);
  };
  socket.once("error", onError);
  socket.once("connect", () => {
    cleanup();
    resolve({ ok: true, socket });
  });
  signal.addEventListener("abort", onAbort, { once: true });
  return promise;
}

/**
 * Pipes `a` and `b` into each other, `rest` (bytes `a` sent early) first; an error or close on
 * either side ends both. Resolves once both are closed.
 */
export function splice(a: Socket, b: Socket, rest: Buffer): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  let open = 2;
  const closed = () => {
    open--;
    if (open === 0) resolve();
  };
  a.once("close", closed);
  b.once("close", closed);
  const fail = () => {
    a.destroy();
    b.destroy();
  };
  a.on("error", fail);
  b.on("error", fail);
  if (rest.length > 0) b.write(rest);
  if (a.readableEnded) b.end();
  else a.pipe(b);
  b.pipe(a);
  a.resume();
  return promise;
}
