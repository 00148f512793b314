/**
 * Streamed answers as terminal Markdown. Rendering is Bun's own `Bun.markdown.ansi` (headings,
 * lists, tables, code blocks with highlighting, inline code), built into the runtime: no
 * dependency and nothing to load at start-up. A Markdown block can only be rendered once it is
 * complete, so the stream is cut at blank lines outside code fences, and each finished block
 * is printed as soon as it ends; the rest is printed at the end of the answer.
 */
import { terminalText } from "../exec/sanitize.ts";

/** Renders one complete piece of Markdown for a terminal `columns` wide. */
function renderMarkdown(text: string, columns: number): string {
  const rendered = Bun.markdown.ansi(terminalText(text), { columns, hyperlinks: false });
  return `${rendered.replace(/\s+$/, "")}\n`;
}

export interface MarkdownStream {
  /** Adds answer text; returns what is ready to print (whole rendered blocks, maybe ""). */
  push(text: string): string;
  /** Renders whatever is left; the stream is empty afterwards. */
  end(): string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function createMarkdownStream(columns: number): MarkdownStream {
  let pending = "";
  /** Where the first line not yet looked at starts in `pending`, and the open fence if any. */
  let scanned = 0;
  let fence: string | undefined;
  let blocksShown = 0;
  const emit = (block: string): string => {
    if (block.trim() === "") return "";
    const separator = blocksShown > 0 ? "\n" : "";
    blocksShown += 1;
    return separator + renderMarkdown(block, columns);
  };
  return {
    push(text) {
      pending += text;
      let out = "";
      let blockStart = 0;
      let lineStart = scanned;
      for (;;) {
        const newline = pending.indexOf("\n", lineStart);
        if (newline === -1) break;
        const line = pending.slice(lineStart, newline);
        const marker = FENCE.exec(line)?.[1];
        if (marker !== undefined) {
          if (fence === undefined) fence = marker;
          else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
        } else if (fence === undefined && line.trim() === "") {
          out += emit(pending.slice(blockStart, newline));
          blockStart = newline + 1;
        }
        lineStart = newline + 1;
      }
      pending = pending.slice(blockStart);
      scanned = lineStart - blockStart;
      return out;
    },
    end() {
      const rest = pending;
      pending = "";
      scanned = 0;
      fence = undefined;
      return emit(rest);
    },
  };
}
