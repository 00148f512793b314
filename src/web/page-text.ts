/**
 * What a fetched body becomes for the model, by its media type: HTML as Markdown, JSON
 * pretty-printed, other text as it is; PDFs, images, audio, video and other binary bodies are
 * refused with a sentence saying what they are, never decoded into noise.
 */
import { htmlToMarkdown } from "./html-markdown.ts";

/** The readable form of a body. */
export type PageText =
  | {
      readonly ok: true;
      /** How the text was made: `markdown` (converted HTML), `json` (re-indented) or `text`. */
      readonly form: "markdown" | "json" | "text";
      readonly text: string;
      /** The HTML document's title; empty for other forms. */
      readonly title: string;
    }
  | { readonly ok: false; readonly reason: string };

/** The media type of a `Content-Type` header, lower-cased, and its charset when given. */
export function mediaTypeOf(header: string | undefined): { type: string; charset?: string } {
  if (header === undefined) return { type: "" };
  const [type = "", ...params] = header.split(";");
  const charset = params
    .map((param) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param)?.[1])
    .find((value) => value !== undefined);
  return { type: type.trim().toLowerCase(), ...(charset === undefined ? {} : { charset }) };
}

/**
 * Turns `body` into text.
 * @param contentType the response's `Content-Type` header, when it had one
 * @param url the final URL, against which converted links are resolved
 */
export async function pageText(
  body: Uint8Array,
  contentType: string | undefined,
  url: string,
): Promise<PageText> {
  const { type, charset } = mediaTypeOf(contentType);
  const kind = kindOf(type, body);
  if (kind.type === "refused") return { ok: false, reason: kind.reason };
  const text = decode(body, charset);
  switch (kind.type) {
    case "html": {
      const page = await htmlToMarkdown(text, url);
      return { ok: true, form: "markdown", text: page.markdown, title: page.title };
    }
    case "json":
      return { ok: true, form: "json", text: prettyJson(text), title: "" };
    case "text":
      return { ok: true, form: "text", text, title: "" };
    default: {
      const unhandled: never = kind;
      return unhandled;
    }
  }
}

type Kind =
  | { readonly type: "html" | "json" | "text" }
  | { readonly type: "refused"; readonly reason: string };

const TEXT_APPLICATION_TYPES = new Set([
  "application/javascript",
  "application/ecmascript",
  "application/xml",
  "application/x-sh",
  "application/toml",
  "application/yaml",
  "application/x-yaml",
  "application/sql",
  "application/graphql",
]);

function kindOf(type: string, body: Uint8Array): Kind {
  if (type === "text/html" || type === "application/xhtml+xml") return { type: "html" };
  if (type === "application/json" || type.endsWith("+json")) return { type: "json" };
  if (type.startsWith("text/") || type.endsWith("+xml") || TEXT_APPLICATION_TYPES.has(type))
    return { type: "text" };
  if (type === "application/pdf") {
    return refused("a PDF document (application/pdf), which web_fetch does not read");
  }
  for (const family of ["image", "audio", "video", "font"] as const) {
    if (type.startsWith(`${family}/`))
      return refused(`${article(family)} ${family} (${type}); web_fetch reads text only`);
  }
  // No type, or a generic one: the bytes decide.
  if (type === "" || type === "application/octet-stream" || type === "binary/octet-stream") {
    if (startsWith(body, "%PDF-")) return refused("a PDF document, which web_fetch does not read");
    if (looksBinary(body)) return refused("binary data, not text; web_fetch reads text only");
    return /^\s*(<!doctype html|<html[\s>])/i.test(new TextDecoder().decode(body.subarray(0, 512)))
      ? { type: "html" }
      : { type: "text" };
  }
  return refused(`${type}, not text; web_fetch reads text, HTML and JSON only`);
}

function refused(reason: string): Kind {
  return { type: "refused", reason };
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

function startsWith(body: Uint8Array, magic: string): boolean {
  return new TextDecoder().decode(body.subarray(0, magic.length)) === magic;
}

/** A NUL byte in the first 8 KiB: no text encoding a page would use writes one. */
function looksBinary(body: Uint8Array): boolean {
  return body.subarray(0, 8192).includes(0);
}

/** The text in the charset the server named; UTF-8 when it named none (or none known). */
function decode(body: Uint8Array, charset: string | undefined): string {
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset as ConstructorParameters<typeof TextDecoder>[0]).decode(body);
    } catch {
      // An unknown label: UTF-8 below is the web's default.
    }
  }
  return new TextDecoder().decode(body);
}

/** JSON re-indented by two spaces; a body that does not parse (cut short) stays as it is. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
