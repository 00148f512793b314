/**
 * Collects a command's output under a memory bound: the first `headBytes` and the last
 * `tailBytes` are kept, the middle is only counted. Live text goes to a listener until
 * `liveBytes` have been shown, then one notice says the rest is in the final result.
 */
import { createStreamSanitizer, sanitizeOutput } from "../render/terminal-text.ts";

export interface OutputLimits {
  readonly headBytes: number;
  readonly tailBytes: number;
  /** Raw bytes passed to the live listener before it is told the rest comes at the end. */
  readonly liveBytes: number;
}

export interface OutputCollector {
  /** Adds raw bytes; returns the total number of bytes seen so far. */
  push(bytes: Uint8Array): number;
  /** Ends the live stream and returns the capped, sanitised text and the bytes dropped. */
  finish(): { text: string; droppedBytes: number };
}

/** Creates a collector; `onText` receives sanitised live text (never throws into the caller). */
export function createOutputCollector(
  limits: OutputLimits,
  onText?: (text: string) => void,
): OutputCollector {
  const head = new Uint8Array(limits.headBytes);
  let headLength = 0;
  let tail: Uint8Array[] = [];
  let tailLength = 0;
  let total = 0;
  let live = 0;
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const stream = createStreamSanitizer();

  const emit = (text: string) => {
    if (text.length === 0 || onText === undefined) return;
    try {
      onText(text);
    } catch {
      // A failing listener must not stop the draining of the pipe.
    }
  };

  const keepTail = (bytes: Uint8Array) => {
    tail.push(bytes);
    tailLength += bytes.length;
    while (tail.length > 1 && tailLength - (tail[0]?.length ?? 0) >= limits.tailBytes) {
      tailLength -= tail.shift()?.length ?? 0;
    }
  };

  return {
    push(bytes: Uint8Array): number {
      total += bytes.length;
      const room = limits.headBytes - headLength;
      if (room > 0) {
        const taken = bytes.subarray(0, room);
        head.set(taken, headLength);
        headLength += taken.length;
        if (taken.length < bytes.length) keepTail(bytes.slice(room));
      } else {
        keepTail(bytes.slice());
      }
      if (live < limits.liveBytes) {
        const shown = bytes.subarray(0, limits.liveBytes - live);
        live += shown.length;
        emit(stream.push(decoder.decode(shown, { stream: true })));
        if (live >= limits.liveBytes) {
          emit(stream.push(decoder.decode()) + stream.end());
          emit(
            "\n[... live output stops here; the end of the output follows when the command ends ...]\n",
          );
        }
      }
      return total;
    },
    finish() {
      if (live < limits.liveBytes) emit(stream.push(decoder.decode()) + stream.end());
      const kept = joinTail(tail, tailLength, limits.tailBytes);
      tail = [];
      if (total <= headLength + kept.length) {
        return { text: decode(concat(head.subarray(0, headLength), kept)), droppedBytes: 0 };
      }
      const headText = trimIncomplete(head.subarray(0, headLength));
      const tailText = skipContinuation(kept);
      const droppedBytes = total - headText.length - tailText.length;
      const text = `${decode(headText)}\n[... ${droppedBytes} bytes omitted ...]\n${decode(tailText)}`;
      return { text, droppedBytes };
    },
  };
}

function decode(bytes: Uint8Array): string {
  return sanitizeOutput(new TextDecoder("utf-8", { fatal: false }).decode(bytes));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** The last `limit` bytes of the kept tail chunks. */
function joinTail(chunks: readonly Uint8Array[], length: number, limit: number): Uint8Array {
  const all = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return length > limit ? all.subarray(length - limit) : all;
}

/** Drops a UTF-8 sequence cut at the end, so the cut never shows as a replacement char. */
function trimIncomplete(bytes: Uint8Array): Uint8Array {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}

/** Skips continuation bytes at the start of a tail cut in the middle of a character. */
function skipContinuation(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < 3 && start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return bytes.subarray(start);
}
