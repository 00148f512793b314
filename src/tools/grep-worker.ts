/**
 * What grep's worker thread runs: the regular expression tested line by line, away from the
 * event loop, so a pattern that backtracks for long freezes only this thread (which the main
 * side terminates) and never the sessions, cancels and pipes of the process.
 *
 * `grepWorkerMain` is started from its own source text (see `grep-matcher.ts`), so it must
 * stay self-contained: no imports, no module-level names, only globals of a worker.
 */

/** One batch of files to search, posted to the worker. */
export interface MatchRequest {
  readonly source: string;
  readonly flags: string;
  /** Matching lines kept per file. */
  readonly limit: number;
  /** Characters kept of a matching line; the rest is replaced by "…". */
  readonly lineChars: number;
  /** The files' bytes, UTF-8 (invalid sequences are matched as U+FFFD); transferred, not copied. */
  readonly files: readonly Uint8Array[];
}

/** A matching line: its 1-based number and its text, cut. */
export interface LineMatch {
  readonly line: number;
  readonly text: string;
}

/** The worker's answer: per file of the request, in order, its matching lines. */
export interface MatchReply {
  readonly files: readonly (readonly LineMatch[])[];
}

/** The worker's entry point; it answers each `MatchRequest` with a `MatchReply`. */
export function grepWorkerMain(): void {
  let compiled: { key: string; regex: RegExp } | undefined;
  const regexFor = (source: string, flags: string): RegExp => {
    const key = `${flags}/${source}`;
    if (compiled?.key !== key) compiled = { key, regex: new RegExp(source, flags) };
    return compiled.regex;
  };
  const decoder = new TextDecoder("utf-8");
  const search = (bytes: Uint8Array, regex: RegExp, limit: number, lineChars: number) => {
    const lines = decoder.decode(bytes).split("\n");
    if (lines.at(-1) === "") lines.pop();
    const found: { line: number; text: string }[] = [];
    for (let index = 0; index < lines.length && found.length < limit; index++) {
      const line = (lines[index] ?? "").replace(/\r$/, "");
      if (!regex.test(line)) continue;
      found.push({
        line: index + 1,
        text: line.length > lineChars ? `${line.slice(0, lineChars)}…` : line,
      });
    }
    return found;
  };
  addEventListener("message", (event: MessageEvent) => {
    const request: unknown = event.data;
    if (
      typeof request !== "object" ||
      request === null ||
      !("source" in request && typeof request.source === "string") ||
      !("flags" in request && typeof request.flags === "string") ||
      !("limit" in request && typeof request.limit === "number") ||
      !("lineChars" in request && typeof request.lineChars === "number") ||
      !("files" in request && Array.isArray(request.files))
    ) {
      throw new TypeError("grep worker: malformed request");
    }
    const regex = regexFor(request.source, request.flags);
    const { limit, lineChars } = request;
    const files = request.files.map((bytes: unknown) =>
      bytes instanceof Uint8Array ? search(bytes, regex, limit, lineChars) : [],
    );
    postMessage({ files });
  });
}
