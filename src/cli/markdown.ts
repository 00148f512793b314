/**
 * Streamed answers as terminal Markdown. Rendering is Bun's own `Bun.markdown.ansi` (headings,
 * lists, tables, code blocks with highlighting, inline code), built into the runtime: no
 * dependency and nothing to load at start-up. A Markdown block renders right only once it is
 * complete, so the stream is cut at blank lines outside code fences and each finished block is
 * printed as it ends; the block still open is rendered as it stands, for the screen to show
 * as a preview and replace as it grows. An open block taller than the room the preview has
 * (a long code block, say) gives its first lines to the output, rendered, so nothing scrolls
 * out of reach before it is drawn.
 */
import { terminalText } from "../render/terminal-text.ts";
import { rowsOf } from "./terminal-width.ts";

/** Renders one complete piece of Markdown for a terminal `columns` wide. */
function renderMarkdown(text: string, columns: number): string {
  const rendered = Bun.markdown.ansi(terminalText(text), { columns, hyperlinks: false });
  return `${rendered.replace(/\s+$/, "")}\n`;
}

/** What a push gives: rendered text to print for good, and the open block as it stands. */
export interface MarkdownPiece {
  readonly commit: string;
  /** The open block rendered ("" when there is none); replaces the previous preview. */
  readonly preview: string;
}

export interface MarkdownStream {
  /**
   * Adds answer text. `room` is the most rows the preview may take; undefined: no preview is
   * shown, so none is rendered and open blocks wait for their end.
   */
  push(text: string, room?: number): MarkdownPiece;
  /** Renders whatever is left; the stream is empty afterwards. */
  end(): string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The fence a line opens or closes, if it is a fence line. */
function fenceMarker(line: string): string | undefined {
  return FENCE.exec(line)?.[1];
}

/** Whether `marker` closes the fence `open`. */
function closes(open: string, marker: string): boolean {
  return marker[0] === open[0] && marker.length >= open.length;
}

export function createMarkdownStream(columns: number): MarkdownStream {
  let pending = "";
  /** Where the first line not yet looked at starts in `pending`, and the open fence if any. */
  let scanned = 0;
  let fence: string | undefined;
  let blocksShown = 0;
  /**
   * Set once the open block gave its first lines to the output: the fence line it opened with
   * (its rest renders under that fence, without the fence's top row), or "" outside a fence.
   */
  let continued: string | undefined;

  /** `block` rendered where it goes: after a blank line, or as the rest of a continued block. */
  const render = (block: string): string => {
    if (block.trim() === "") return "";
    if (continued === undefined) {
      const separator = blocksShown > 0 ? "\n" : "";
      return separator + renderMarkdown(block, columns);
    }
    if (continued === "") return renderMarkdown(block, columns);
    // Under its fence again: the fence's top row was printed with the first lines.
    const rows = renderMarkdown(`${continued}\n${block}`, columns).split("\n");
    return rows.slice(1).join("\n");
  };

  const emit = (block: string): string => {
    const out = render(block);
    if (block.trim() !== "" && continued === undefined) blocksShown += 1;
    continued = undefined;
    return out;
  };

  const rowsIn = (text: string) =>
    text === ""
      ? 0
      : text
          .replace(/\n$/, "")
          .split("\n")
          .reduce((n, l) => n + rowsOf(l, columns), 0);

  /** Where to cut `pending` in two: at the line break nearest its middle, else a space, else the middle. */
  const cutPoint = (): number => {
    const middle = Math.floor(pending.length / 2);
    let best = -1;
    for (
      let i = pending.indexOf("\n");
      i !== -1 && i < pending.length - 1;
      i = pending.indexOf("\n", i + 1)
    ) {
      if (best === -1 || Math.abs(i + 1 - middle) < Math.abs(best - middle)) best = i + 1;
    }
    if (best > 0) return best;
    const space = pending.lastIndexOf(" ", middle);
    if (space > 0) return space + 1;
    const at = middle;
    const code = pending.charCodeAt(at - 1);
    return code >= 0xd800 && code <= 0xdbff ? at + 1 : Math.max(1, at);
  };

  /** The fence open at `cut` within `pending`, given the block's state at its start. */
  const fenceAt = (cut: number): string | undefined => {
    let open = continued === undefined || continued === "" ? undefined : continued;
    const opener = (line: string) => line.trim();
    for (const line of pending.slice(0, cut).split("\n")) {
      const marker = fenceMarker(line);
      if (marker === undefined) continue;
      if (open === undefined) open = opener(line);
      else if (closes(fenceMarker(open) ?? marker, marker)) open = undefined;
    }
    return open;
  };

  /** Gives the first part of the open block to the output; returns what to print. */
  const cut = (): string => {
    const at = cutPoint();
    const first = pending.slice(0, at);
    const inside = fenceAt(at);
    let out = render(first);
    if (inside !== undefined) {
      // The fence is still open: its bottom row belongs to the end of the block.
      const rows = out.replace(/\n$/, "").split("\n");
      out = `${rows.slice(0, -1).join("\n")}\n`;
    }
    if (continued === undefined && first.trim() !== "") blocksShown += 1;
    continued = inside ?? "";
    pending = pending.slice(at);
    scanned = Math.max(0, scanned - at);
    return out;
  };

  return {
    push(text, room) {
      pending += text;
      let commit = "";
      let blockStart = 0;
      let lineStart = scanned;
      for (;;) {
        const newline = pending.indexOf("\n", lineStart);
        if (newline === -1) break;
        const line = pending.slice(lineStart, newline);
        const marker = fenceMarker(line);
        if (marker !== undefined) {
          if (fence === undefined) fence = marker;
          else if (closes(fence, marker)) fence = undefined;
        } else if (fence === undefined && line.trim() === "") {
          commit += emit(pending.slice(blockStart, newline));
          blockStart = newline + 1;
        }
        lineStart = newline + 1;
      }
      pending = pending.slice(blockStart);
      scanned = lineStart - blockStart;
      if (room === undefined) return { commit, preview: "" };
      let preview = render(pending);
      for (let tries = 0; tries < 8 && rowsIn(preview) > room && pending.length > 1; tries++) {
        commit += cut();
        preview = render(pending);
      }
      return { commit, preview };
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
