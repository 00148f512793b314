/**
 * dsh's own newline-delimited JSON-RPC framing in front of the ACP SDK. Lines split on LF only
 * and are judged one by one (`inbound.ts`): the SDK sees only well-formed messages, and every
 * bad line gets one short error reply from here, so no input, however large or deep, stops the
 * connection. A line past the size limit is skipped to its end, never buffered whole. The end of
 * the input does not end the stream: the server answers what was read first, then calls `end()`.
 * Outgoing lines keep their order; a burst of them goes out as one write (`line-writer.ts`).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { Logger } from "../log.ts";
import { type ErrorReply, errorReply, judgeLine, tooLargeReply } from "./inbound.ts";
import { createLineWriter } from "./line-writer.ts";

/** The longest line read as a message (the SDK's own default). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

/** An error response longer than this loses its `data`, so no reply can grow with the input. */
const MAX_ERROR_REPLY_CHARS = 16 * 1024;

/** Past this many of its own replies unwritten, the reader waits for the client to take them. */
const MAX_QUEUED_REPLIES = 256;

const LF = 0x0a;

export interface FramedStreamDeps {
  readonly input: ReadableStream<Uint8Array>;
  readonly output: WritableStream<Uint8Array>;
  readonly logger: Logger;
  readonly maxLineBytes?: number;
}

export interface FramedStream {
  /** What the SDK connection reads and writes. */
  readonly stream: acp.Stream;
  /** Resolves once the input ended (EOF or a read error) and every line before it was judged. */
  readonly inputEnded: Promise<void>;
  /** Resolves once a write to the output failed: the client stopped reading (EPIPE). */
  readonly outputFailed: Promise<void>;
  /** Requests handed to the SDK and not answered yet. */
  pendingRequests(): number;
  /** Resolves once every request handed on was answered and its answer written. */
  answered(): Promise<void>;
  /**
   * Writes `messages` straight to the output, after everything handed on before: a burst of
   * notifications (a replayed transcript) skips the SDK's per-message stream work. Rejects once
   * the client is gone.
   */
  writeMessages(messages: readonly acp.AnyMessage[]): Promise<void>;
  /** Ends the stream the SDK reads, so its connection closes. Idempotent. */
  end(): void;
  /** Waits for queued writes, then closes the output; never throws. */
  close(): Promise<void>;
}

/** Wraps a pair of byte streams. Nothing is read until the SDK starts reading. */
export function createFramedStream(deps: FramedStreamDeps): FramedStream {
  const { logger } = deps;
  const maxLineBytes = deps.maxLineBytes ?? MAX_LINE_BYTES;
  const writer = deps.output.getWriter();
  const pending = new Set<string>();
  let idle = Promise.withResolvers<void>();
  idle.resolve();
  const ended = Promise.withResolvers<void>();
  const failed = Promise.withResolvers<void>();
  let controller: ReadableStreamDefaultController<acp.AnyMessage> | undefined;
  let inputReader: { cancel(): Promise<void> } | undefined;
  let closed = false;
  // A client that stopped reading ends the connection, as a failed read would.
  const lines = createLineWriter(writer, (error) => {
    failed.resolve();
    if (closed) return;
    closed = true;
    try {
      controller?.error(error);
    } catch {
      // Already closed by the SDK.
    }
    void inputReader?.cancel().catch(() => undefined);
  });

  let queuedReplies = 0;
  const sendReply = (reply: ErrorReply) => {
    queuedReplies += 1;
    lines
      .write(JSON.stringify(reply))
      .catch(() => undefined)
      .finally(() => {
        queuedReplies -= 1;
      });
  };

  // Messages that arrive while an `initialize` is unanswered wait for its answer: the SDK
  // handles messages concurrently and would refuse them as sent before initialization.
  let initializing: string | undefined;
  let held: acp.AnyMessage[] = [];
  const deliver = (message: acp.AnyMessage) => {
    if ("method" in message && "id" in message) {
      if (pending.size === 0) idle = Promise.withResolvers<void>();
      pending.add(idKey(message.id));
      if (message.method === "initialize") initializing = idKey(message.id);
    }
    if (!closed) controller?.enqueue(message);
  };
  const forward = (message: acp.AnyMessage) => {
    if (initializing === undefined) deliver(message);
    else held.push(message);
  };
  const release = (key: string) => {
    if (key !== initializing) return;
    initializing = undefined;
    const waiting = held;
    held = [];
    for (const [i, message] of waiting.entries()) {
      if (initializing !== undefined) {
        held.push(...waiting.slice(i));
        return;
      }
      deliver(message);
    }
  };
  const judge = (bytes: Uint8Array) => {
    const inbound = judgeLine(new TextDecoder().decode(bytes));
    if (inbound.type === "message") forward(inbound.message);
    else if (inbound.type === "reply") sendReply(inbound.reply);
  };

  const readAll = async () => {
    const reader = deps.input.getReader();
    inputReader = reader;
    const splitter = createLineSplitter(maxLineBytes, judge, () => {
      logger.warn("skipping a message over the size limit", { limit: maxLineBytes });
      sendReply(tooLargeReply(maxLineBytes));
    });
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        if (closed) return;
        splitter.push(read.value);
        // A flood of bad lines from a client that does not read its replies must not queue
        // them without end; well-formed input never waits here.
        if (queuedReplies > MAX_QUEUED_REPLIES) await lines.drained();
      }
      splitter.finish();
    } catch (error) {
      if (!closed) logger.warn("reading from the client failed", { error: String(error) });
    } finally {
      ended.resolve();
    }
  };

  const readable = new ReadableStream<acp.AnyMessage>({
    start(c) {
      controller = c;
      void readAll();
    },
    cancel() {
      closed = true;
      void inputReader?.cancel().catch(() => undefined);
    },
  });

  const writable = new WritableStream<acp.AnyMessage>({
    async write(message) {
      await lines.write(encodeOutgoing(message));
      if ("method" in message || !("id" in message)) return;
      // A response counts as answered once it is out, with everything queued before it; the
      // SDK's next message need not wait for that.
      const key = idKey(message.id);
      void lines.drained().then(() => {
        release(key);
        if (pending.delete(key) && pending.size === 0) idle.resolve();
      });
    },
  });

  return {
    stream: { readable, writable },
    inputEnded: ended.promise,
    outputFailed: failed.promise,
    pendingRequests: () => pending.size,
    answered: () => idle.promise,
    writeMessages: (messages) => lines.writeAll(messages.map(encodeOutgoing)),
    end() {
      if (closed) return;
      closed = true;
      try {
        controller?.close();
      } catch {
        // Already closed or errored by the SDK's cancel.
      }
      void inputReader?.cancel().catch(() => undefined);
    },
    async close() {
      await lines.drained();
      try {
        await writer.close();
      } catch {
        // The client closed its end first; nothing is left to flush.
      }
    },
  };
}

/**
 * One outgoing message as a line. An error response that would be huge (or cannot be encoded)
 * goes out without its data; anything else that cannot be encoded is the caller's error.
 */
function encodeOutgoing(message: acp.AnyMessage): string {
  const isError = "error" in message && !("method" in message);
  let text: string | undefined;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    if (!isError) throw error;
  }
  if (!isError || (text !== undefined && text.length <= MAX_ERROR_REPLY_CHARS)) return text ?? "";
  const { code, message: what } = message.error;
  return JSON.stringify(errorReply(message.id, code, what.slice(0, 1024)));
}

function idKey(id: string | number | null): string {
  return `${typeof id}:${String(id)}`;
}

/**
 * Splits bytes into lines on LF. A line longer than `limit` is reported once through
 * `onTooLarge` and its bytes are dropped up to its LF.
 */
function createLineSplitter(
  limit: number,
  onLine: (bytes: Uint8Array) => void,
  onTooLarge: () => void,
) {
  let parts: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  const take = (last: Uint8Array): Uint8Array => {
    const line = parts.length === 0 ? last : Buffer.concat([...parts, last]);
    parts = [];
    size = 0;
    return line;
  };
  const overflow = () => {
    parts = [];
    size = 0;
    skipping = true;
    onTooLarge();
  };
  return {
    push(chunk: Uint8Array) {
      let start = 0;
      for (let nl = chunk.indexOf(LF); nl >= 0; nl = chunk.indexOf(LF, start)) {
        const piece = chunk.subarray(start, nl);
        start = nl + 1;
        if (!skipping) {
          if (size + piece.byteLength > limit) overflow();
          else onLine(take(piece));
        }
        skipping = false;
      }
      if (start >= chunk.byteLength || skipping) return;
      const tail = chunk.slice(start);
      if (size + tail.byteLength > limit) overflow();
      else {
        parts.push(tail);
        size += tail.byteLength;
      }
    },
    finish() {
      if (!skipping && size > 0) onLine(take(new Uint8Array(0)));
    },
  };
}
