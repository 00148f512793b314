/**
 * `dsh acp`: serves one ACP connection over newline-delimited JSON-RPC on the given byte
 * streams until the client goes away (stdin EOF) or the caller's signal fires. Either way every
 * request read before then is answered (running prompts are cancelled and answer `cancelled`),
 * then the connection closes, every session is disposed in parallel and this resolves. A client
 * that stops reading the output gets no answers: its turns are cancelled as they are when it
 * disconnects. The caller exits 0.
 */
import * as acp from "@agentclientprotocol/sdk";
import { createAgentApp } from "./agent-app.ts";
import type { ClientOptions } from "./capabilities.ts";
import { createFramedStream } from "./framing.ts";
import { createSessionTable } from "./sessions.ts";
import type { RunAcpDeps } from "./types.ts";

/** The longest shutdown waits for requests read before it to be answered. */
const ANSWER_WAIT_MS = 10_000;
/** How often shutdown cancels again: a prompt may start after the first round of cancels. */
const CANCEL_ROUND_MS = 25;

/** Runs the bridge; resolves once the connection is closed and every session is disposed. */
export async function runAcpServer(deps: RunAcpDeps): Promise<void> {
  const { logger } = deps;
  let client: ClientOptions = { terminalOutput: false, elicitForm: false, notices: false };
  const clientOptions = () => client;
  const table = createSessionTable({
    logger,
    clientOptions,
    approvals: deps.approvals,
    questions: deps.questions,
  });
  const framed = createFramedStream({ input: deps.input, output: deps.output, logger });
  const app = createAgentApp({
    ...deps,
    hasApiKey: deps.hasApiKey ?? (() => true),
    table,
    clientOptions,
    setClientOptions: (options) => {
      client = options;
    },
    writeUpdates: (sessionId, updates) =>
      framed.writeMessages(
        updates.map((update) => ({
          jsonrpc: "2.0",
          method: acp.methods.client.session.update,
          params: { sessionId, update },
        })),
      ),
  });
  const connection = app.connect(framed.stream);

  const stop = Promise.withResolvers<"stop">();
  const onAbort = () => stop.resolve("stop");
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  if (deps.signal?.aborted === true) stop.resolve("stop");
  // Nobody reads the answers any more: noticed at a write, or while idle where that is possible.
  const outputGone = Promise.race([
    framed.outputFailed.then(() => "at a write" as const),
    (deps.outputGone ?? new Promise<void>(noop)).then(() => "while idle" as const),
  ]);
  let why: "stop" | "eof" | "closed" | "output";
  try {
    why = await Promise.race([
      connection.closed.then(() => "closed" as const),
      framed.inputEnded.then(() => "eof" as const),
      outputGone.then(() => "output" as const),
      stop.promise,
    ]);
  } finally {
    deps.signal?.removeEventListener("abort", onAbort);
  }

  if (why === "output") {
    logger.info("client stopped reading: ending every turn", {
      noticed: await outputGone,
      pending: framed.pendingRequests(),
    });
    framed.end();
    connection.close();
  } else if (!connection.signal.aborted) {
    logger.info(
      why === "eof"
        ? "client closed its input: answering what it sent"
        : "shutting down: cancelling running prompts",
      { pending: framed.pendingRequests() },
    );
    await answerPending(framed, table, outputGone);
    framed.end();
    connection.close();
  } else {
    logger.info("client disconnected");
  }
  await table.closeAll();
  // What is still queued has no reader once the output is gone.
  await Promise.race([framed.close(), outputGone]);
}

/**
 * Cancels every turn (again, for prompts that start late) until each request read is answered,
 * or until nobody reads the answers.
 */
async function answerPending(
  framed: ReturnType<typeof createFramedStream>,
  table: ReturnType<typeof createSessionTable>,
  outputGone: Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + ANSWER_WAIT_MS;
  for (;;) {
    for (const session of table.all()) session.cancel();
    const round = Promise.withResolvers<boolean>();
    const timer = setTimeout(() => round.resolve(false), CANCEL_ROUND_MS);
    const done = await Promise.race([
      framed.answered().then(() => true),
      outputGone.then(() => true),
      round.promise,
    ]);
    clearTimeout(timer);
    if (done || Date.now() >= deadline) break;
  }
  await Promise.all(table.all().map((session) => session.settled()));
}

function noop() {}
