/**
 * Incremental Server-Sent Events decoding for model streams. Bytes arrive in arbitrary
 * pieces: UTF-8 is decoded in streaming mode so a character split across reads survives,
 * lines split on LF with a trailing CR stripped, and the `data:` lines of one event are
 * joined with LF. Comments (`: keep-alive`), `id:` and `retry:` are ignored.
 */

/** One dispatched event: its `event:` name (`message` when absent) and joined data. */
export interface SseMessage {
  readonly event: string;
  readonly data: string;
}

export interface SseDecoder {
  /** Feeds bytes; returns the events completed by them, in order. */
  push(bytes: Uint8Array): SseMessage[];
  /** Ends the input: flushes a last unterminated line and a last event without a blank line. */
  end(): SseMessage[];
}

/** Creates a decoder for one response body. */
export function createSseDecoder(): SseDecoder {
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  let dataLines: string[] = [];
  let eventName = "";

  const dispatch = (out: SseMessage[]) => {
    if (dataLines.length > 0)
      out.push({ event: eventName || "message", data: dataLines.join("\n") });
    dataLines = [];
    eventName = "";
  };

  const line = (raw: string, out: SseMessage[]) => {
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (text === "") return dispatch(out);
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    const rest = colon < 0 ? "" : text.slice(colon + 1);
    const value = rest.startsWith(" ") ? rest.slice(1) : rest;
    if (field === "data") dataLines.push(value);
    else if (field === "event") eventName = value;
  };

  const drain = (out: SseMessage[]) => {
    let start = 0;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n", start)) {
      line(buffer.slice(start, nl), out);
      start = nl + 1;
    }
    buffer = buffer.slice(start);
  };

  return {
    push(bytes) {
      const out: SseMessage[] = [];
      buffer += decoder.decode(bytes, { stream: true });
      drain(out);
      return out;
    },
    end() {
      const out: SseMessage[] = [];
      buffer += decoder.decode();
      drain(out);
      if (buffer !== "") line(buffer, out);
      buffer = "";
      dispatch(out);
      return out;
    },
  };
}
