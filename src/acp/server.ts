/**
 * `dsh acp`: serves one ACP connection over newline-delimited JSON-RPC on the given byte
 * streams until the client goes away (stdin EOF) or the caller's signal fires, then cancels
 * every turn, disposes every session in parallel and resolves. The caller exits 0.
 */
import * as acp from "@agentclientprotocol/sdk";
import { createAgentApp } from "./agent-app.ts";
import type { ClientOptions } from "./capabilities.ts";
import { createSessionTable } from "./sessions.ts";
import type { RunAcpDeps } from "./types.ts";

/** Runs the bridge; resolves once the connection is closed and every session is disposed. */
export async function runAcpServer(deps: RunAcpDeps): Promise<void> {
  const { logger } = deps;
  let client: ClientOptions = { terminalOutput: false, elicitForm: false };
  const clientOptions = () => client;
  const table = createSessionTable({
    logger,
    clientOptions,
    approvals: deps.approvals,
    questions: deps.questions,
  });
  const app = createAgentApp({
    ...deps,
    hasApiKey: deps.hasApiKey ?? (() => true),
    table,
    clientOptions,
    setClientOptions: (options) => {
      client = options;
    },
  });
  const output = trackWrites(deps.output);
  const connection = app.connect(acp.ndJsonStream(output.writable, deps.input));

  const stop = Promise.withResolvers<void>();
  const onAbort = () => stop.resolve();
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  if (deps.signal?.aborted === true) stop.resolve();
  try {
    await Promise.race([connection.closed, stop.promise]);
  } finally {
    deps.signal?.removeEventListener("abort", onAbort);
  }

  if (!connection.signal.aborted) {
    // Asked to stop while the client is still there: running prompts answer `cancelled`
    // before the connection closes.
    logger.info("shutting down: cancelling running prompts");
    const sessions = table.all();
    for (const session of sessions) session.cancel();
    await Promise.all(sessions.map((s) => s.settled()));
    await output.drained();
    connection.close();
  } else if (connection.signal.reason instanceof acp.MessageTooLargeError) {
    // The SDK cannot answer a line it refused to buffer; stderr is the only place to say why.
    logger.error("a message from the client is too large; closing the connection", {
      error: connection.signal.reason,
    });
  } else {
    logger.info("client disconnected");
  }
  await table.closeAll();
  await output.close();
}

/**
 * Wraps the output so shutdown can wait until every queued message reached it. Responses are
 * queued a few microtasks after their handler returns, so "drained" means no write in flight
 * across a macrotask turn.
 */
function trackWrites(output: WritableStream<Uint8Array>) {
  const writer = output.getWriter();
  let inFlight = Promise.resolve();
  let writing = 0;
  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      writing++;
      const done = writer.write(chunk);
      inFlight = done.then(noop, noop);
      try {
        await done;
      } finally {
        writing--;
      }
    },
  });
  return {
    writable,
    async drained() {
      do {
        await inFlight;
        await new Promise((resolve) => setTimeout(resolve, 0));
      } while (writing > 0);
    },
    async close() {
      try {
        await writer.close();
      } catch {
        // The client closed its end first; nothing is left to flush.
      }
    },
  };
}

function noop() {}
