/**
 * How a fetched page is reported: the header the model reads above the page (final URL,
 * title, type and size, what was cut), the text kept within the call's bounds, and the `fetch`
 * card the surfaces show (titled with the URL, summarised by the page's title and size).
 */
import type { GenericIntent } from "../render/intent.ts";
import type { ToolResult } from "./types.ts";

/** What is known of a page once fetched, before its text is bounded. */
export interface PageReport {
  /** The URL asked for. */
  readonly url: string;
  readonly finalUrl: string;
  readonly redirects: number;
  readonly title: string;
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string;
  /** Body bytes read (after decompression). */
  readonly bytes: number;
  /** True when the body was cut at the byte bound. */
  readonly cut: boolean;
  readonly form: "markdown" | "json" | "text";
  /** Who fetched it: dsh itself, or DeepSeek's Fetch API. */
  readonly via: "direct" | "deepseek";
}

/** The presenter's view of a call: the page's facts, or why there is no page. */
export type WebFetchDetails =
  | {
      readonly url: string;
      readonly finalUrl: string;
      readonly title: string;
      readonly bytes: number;
      readonly status: number;
      /** The start of the text, for the card. */
      readonly preview: string;
    }
  | { readonly url: string; readonly error: string };

/** Characters of page text the card shows. */
const PREVIEW_CHARS = 8_000;
/** Room kept for the untrusted-content notice and markers around the text. */
const NOTICE_BYTES = 1_024;

const encoder = new TextEncoder();

/**
 * The header and the text kept: at most `limit` characters from the page's start, and the
 * whole result within `maxBytes`.
 */
export function pageReport(
  page: PageReport,
  text: string,
  limit: number,
  maxBytes: number,
): { header: string; shownText: string; details: WebFetchDetails } {
  const byChars = cutAt(text, limit);
  // The header does not yet know how much is shown; its longest form is reserved for it.
  const room = maxBytes - bytesOf(headerOf(page, text.length, text.length)) - NOTICE_BYTES;
  const shownText = withinBytes(byChars, room - 2 * bytesOf(page.finalUrl));
  return {
    header: headerOf(page, shownText.length, text.length),
    shownText,
    details: {
      url: page.url,
      finalUrl: page.finalUrl,
      title: page.title,
      bytes: page.bytes,
      status: page.status,
      preview: cutAt(shownText, PREVIEW_CHARS),
    },
  };
}

function headerOf(page: PageReport, shown: number, total: number): string {
  const lines = [`URL: ${page.finalUrl}`];
  if (page.redirects > 0) {
    lines.push(`Redirected from: ${page.url} (${plural(page.redirects, "redirect")})`);
  }
  if (page.title !== "") lines.push(`Title: ${page.title}`);
  if (page.status < 200 || page.status >= 300) {
    lines.push(`Status: HTTP ${page.status}${page.statusText === "" ? "" : ` ${page.statusText}`}`);
  }
  const type = page.contentType === "" ? "no content type" : page.contentType;
  const how =
    page.via === "deepseek"
      ? "read by DeepSeek's Fetch API"
      : page.form === "markdown"
        ? "converted from HTML to Markdown"
        : page.form === "json"
          ? "JSON, re-indented"
          : "as text";
  lines.push(`Content: ${type}, ${formatBytes(page.bytes)}, ${how}`);
  if (page.cut) {
    lines.push("Cut: the body was longer than the 10 MB web_fetch reads; only its start was read");
  }
  if (shown < total) {
    lines.push(
      `Shown: the first ${count(shown)} of ${count(total)} characters; ask again with a larger max_chars for more`,
    );
  }
  return lines.join("\n");
}

/** The `fetch` card: the URL as its title, the page's title and size as its summary. */
export function presentFetch(url: string, result: ToolResult<WebFetchDetails>): GenericIntent {
  const details = result.details;
  if (details === undefined || "error" in details) {
    const line = result.output.split("\n")[0] ?? "";
    return {
      type: "generic",
      kind: "fetch",
      title: url,
      text: result.output,
      summary: cutAt(line, 160),
    };
  }
  const parts = [
    ...(details.title === "" ? [] : [`"${details.title}"`]),
    formatBytes(details.bytes),
    ...(details.status >= 300 ? [`HTTP ${details.status}`] : []),
  ];
  const summary = parts.join(" · ");
  const header = result.output.slice(0, result.output.indexOf("\n\n"));
  return {
    type: "generic",
    kind: "fetch",
    title: url,
    text: `${header}\n\n${details.preview}`,
    summary,
  };
}

/** `834 B`, `12.3 KB`, `1.2 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function bytesOf(text: string): number {
  return encoder.encode(text).length;
}

/** The first `limit` UTF-16 units of `text`, never splitting a surrogate pair. */
function cutAt(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = /[\ud800-\udbff]/.test(text[limit - 1] ?? "") ? limit - 1 : limit;
  return text.slice(0, end);
}

/** The longest prefix of `text` within `bytes` UTF-8 bytes, never splitting a character. */
function withinBytes(text: string, bytes: number): string {
  const buffer = new Uint8Array(Math.max(0, bytes));
  const { read } = encoder.encodeInto(text, buffer);
  return text.slice(0, read);
}
