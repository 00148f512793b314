/**
 * HTML to Markdown for `web_fetch`, by mdream's WebAssembly build (a Rust HTML-to-Markdown
 * engine made for feeding pages to models): headings, links resolved against the page's URL,
 * lists, GFM tables and fenced code kept; scripts, styles, hidden elements, forms and the
 * navigation chrome (`nav`, `aside`, `footer`, navigation and banner roles) dropped. The page's
 * title comes from Bun's own HTML parser (lol-html, `HTMLRewriter`).
 *
 * The engine is compiled at the first page and kept: nothing of it loads before a fetch needs
 * it, so no command's start-up pays for it.
 */
import wasmPath from "mdream/wasm/mdream_edge_bg.wasm" with { type: "file" };

/** A converted page. */
export interface MarkdownPage {
  readonly markdown: string;
  /** The document's `<title>`, whitespace collapsed; empty when it has none. */
  readonly title: string;
}

/** Elements that are the site around the page, not the page. */
const CHROME = [
  "script",
  "style",
  "noscript",
  "template",
  "title",
  "nav",
  "aside",
  "footer",
  "form",
  "button",
  "input",
  "select",
  "textarea",
  "iframe",
  "object",
  "embed",
  "canvas",
  "dialog",
  '[role="navigation"]',
  '[role="banner"]',
  '[role="search"]',
  '[role="dialog"]',
  '[aria-hidden="true"]',
];

interface Engine {
  readonly htmlToMarkdownResult: (html: string, options: unknown) => unknown;
}

let engine: Promise<Engine> | undefined;

function loadEngine(): Promise<Engine> {
  engine ??= (async () => {
    const [module, bytes] = await Promise.all([import("mdream/wasm"), Bun.file(wasmPath).bytes()]);
    module.initSync({ module: bytes });
    return module;
  })();
  // A failed load is tried again at the next page rather than remembered.
  engine.catch(() => {
    engine = undefined;
  });
  return engine;
}

/**
 * Converts `html` fetched from `url`.
 * @throws Error when the engine cannot load or fails on this page (the caller says so)
 */
export async function htmlToMarkdown(html: string, url: string): Promise<MarkdownPage> {
  const { htmlToMarkdownResult } = await loadEngine();
  const result = htmlToMarkdownResult(html, {
    origin: url,
    plugins: { filter: { exclude: CHROME } },
    clean: { emptyLinks: true, emptyImages: true, emptyLinkText: true, blankLines: true },
  });
  const markdown =
    typeof result === "object" && result !== null && "markdown" in result
      ? String(result.markdown ?? "")
      : "";
  return { markdown: markdown.trim(), title: titleOf(html) };
}

/**
 * The document's title, as a browser's tab shows it: the first `<title>` (the head's comes
 * before any SVG's in the body; a streaming parser builds no tree to say which is which).
 */
export function titleOf(html: string): string {
  // The parser reads only up to the first closing tag: a large page is not parsed twice.
  const end = html.search(/<\/title\s*>/i);
  if (end === -1) return "";
  let title = "";
  let done = false;
  new HTMLRewriter()
    .on("title", {
      text(chunk) {
        if (done) return;
        title += chunk.text;
        if (chunk.lastInTextNode) done = true;
      },
    })
    .transform(html.slice(0, end + "</title>".length));
  return decodeEntities(title).replace(/\s+/g, " ").trim();
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** `HTMLRewriter` hands text as written: the common entities and numeric references. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code =
        name[1] === "x" || name[1] === "X"
          ? Number.parseInt(name.slice(2), 16)
          : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}
