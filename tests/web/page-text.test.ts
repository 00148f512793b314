/**
 * What a fetched body becomes: a documentation page as Markdown with its chrome gone, JSON
 * re-indented, text as it is, and PDFs, images and other binary bodies refused in words.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { htmlToMarkdown, titleOf } from "../../src/web/html-markdown.ts";
import { mediaTypeOf, pageText } from "../../src/web/page-text.ts";
import { docsPageMarkdown } from "./fixtures/docs-page.ts";

const fixture = (name: string) => Bun.file(join(import.meta.dir, "fixtures", name)).text();
const bytes = (text: string) => new TextEncoder().encode(text);

describe("HTML", () => {
  test("a documentation page keeps its headings, links, tables, lists and code; its chrome goes", async () => {
    const page = await htmlToMarkdown(
      await fixture("docs-page.html"),
      "https://docs.example.com/guide/streams.html",
    );
    expect(page).toEqual({
      title: "Streams & Sockets — Example Docs",
      markdown: docsPageMarkdown("https://docs.example.com"),
    });
  });

  test("a fragment without head or body converts, and words around inline code keep their spaces", async () => {
    const page = await htmlToMarkdown(
      "<p>The type is <code>i32</code>\nbecause that is the default.</p>",
      "https://x.test/",
    );
    expect(page).toEqual({ title: "", markdown: "The type is `i32` because that is the default." });
  });

  test("the title is the document's first, entities decoded, an SVG's later one ignored", () => {
    expect(
      titleOf(
        "<html><head><title>\n  A &amp; B &#x2014; C&#39;s\n</title></head><body><svg><title>icon</title></svg></body></html>",
      ),
    ).toBe("A & B — C's");
    expect(titleOf("<p>no title</p>")).toBe("");
  });
});

describe("by media type", () => {
  const url = "https://x.test/a";

  test("JSON is re-indented; JSON cut short stays as it came", async () => {
    expect(await pageText(bytes('{"a":1,"b":[true,null]}'), "application/json", url)).toEqual({
      ok: true,
      form: "json",
      text: '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}',
      title: "",
    });
    expect(await pageText(bytes('{"a":[1,'), "application/problem+json", url)).toEqual({
      ok: true,
      form: "json",
      text: '{"a":[1,',
      title: "",
    });
  });

  test("text types pass as they are, in the charset the server names", async () => {
    expect(await pageText(bytes("# Title\n\nbody\n"), "text/markdown; charset=utf-8", url)).toEqual(
      {
        ok: true,
        form: "text",
        text: "# Title\n\nbody\n",
        title: "",
      },
    );
    const latin1 = Uint8Array.from([0x63, 0x61, 0x66, 0xe9]);
    expect(await pageText(latin1, 'text/plain; charset="ISO-8859-1"', url)).toEqual({
      ok: true,
      form: "text",
      text: "café",
      title: "",
    });
  });

  test("PDFs, images and other binary bodies are refused in words, whatever the header says", async () => {
    const refusals = await Promise.all([
      pageText(bytes("%PDF-1.7 ..."), "application/pdf", url),
      pageText(bytes("%PDF-1.7 ..."), undefined, url),
      pageText(Uint8Array.from([0x89, 0x50, 0x4e, 0x47]), "image/png", url),
      pageText(Uint8Array.from([1, 0, 2, 0]), "application/octet-stream", url),
      pageText(bytes("PK..."), "application/zip", url),
    ]);
    expect(refusals).toEqual([
      { ok: false, reason: "a PDF document (application/pdf), which web_fetch does not read" },
      { ok: false, reason: "a PDF document, which web_fetch does not read" },
      { ok: false, reason: "an image (image/png); web_fetch reads text only" },
      { ok: false, reason: "binary data, not text; web_fetch reads text only" },
      { ok: false, reason: "application/zip, not text; web_fetch reads text, HTML and JSON only" },
    ]);
  });

  test("without a type, HTML is recognised by its start and other text passes", async () => {
    const html = await pageText(
      bytes("<!doctype html><title>T</title><h1>Hi</h1>"),
      undefined,
      url,
    );
    expect(html).toEqual({ ok: true, form: "markdown", text: "# Hi", title: "T" });
    expect(await pageText(bytes("plain"), "", url)).toEqual({
      ok: true,
      form: "text",
      text: "plain",
      title: "",
    });
  });

  test("the media type is read case-insensitively, with its charset", () => {
    expect(mediaTypeOf("Text/HTML; Charset=Shift_JIS")).toEqual({
      type: "text/html",
      charset: "Shift_JIS",
    });
    expect(mediaTypeOf(undefined)).toEqual({ type: "" });
  });
});
