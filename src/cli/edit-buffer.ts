/**
 * The text being typed and the cursor in it, with the edits a line editor makes: insert,
 * delete by character or word, move by character, word or line. Pure: the editor draws it.
 */

export interface EditBuffer {
  text: string;
  /** An index into `text`, never inside a surrogate pair. */
  cursor: number;
}

export function emptyBuffer(): EditBuffer {
  return { text: "", cursor: 0 };
}

/** Replaces the whole text, the cursor at its end. */
export function setText(buffer: EditBuffer, text: string): void {
  buffer.text = text;
  buffer.cursor = text.length;
}

export function insert(buffer: EditBuffer, piece: string): void {
  buffer.text = buffer.text.slice(0, buffer.cursor) + piece + buffer.text.slice(buffer.cursor);
  buffer.cursor += piece.length;
}

/** Replaces `text[start, cursor)` with `piece`. */
export function replaceBeforeCursor(buffer: EditBuffer, start: number, piece: string): void {
  buffer.text = buffer.text.slice(0, start) + piece + buffer.text.slice(buffer.cursor);
  buffer.cursor = start + piece.length;
}

export function deleteBack(buffer: EditBuffer): void {
  if (buffer.cursor === 0) return;
  replaceBeforeCursor(buffer, before(buffer.text, buffer.cursor), "");
}

export function deleteForward(buffer: EditBuffer): void {
  const { text, cursor } = buffer;
  buffer.text = text.slice(0, cursor) + text.slice(after(text, cursor));
}

export function wordStart(buffer: EditBuffer): number {
  const { text } = buffer;
  let i = buffer.cursor;
  while (i > 0 && /\s/.test(text[i - 1] ?? "")) i--;
  while (i > 0 && !/\s/.test(text[i - 1] ?? "")) i--;
  return i;
}

export function wordEnd(buffer: EditBuffer): number {
  const { text } = buffer;
  let i = buffer.cursor;
  while (i < text.length && /\s/.test(text[i] ?? "")) i++;
  while (i < text.length && !/\s/.test(text[i] ?? "")) i++;
  return i;
}

export function lineStart(buffer: EditBuffer): number {
  return buffer.text.lastIndexOf("\n", buffer.cursor - 1) + 1;
}

export function lineEnd(buffer: EditBuffer): number {
  const next = buffer.text.indexOf("\n", buffer.cursor);
  return next === -1 ? buffer.text.length : next;
}

export function killToLineEnd(buffer: EditBuffer): void {
  buffer.text = buffer.text.slice(0, buffer.cursor) + buffer.text.slice(lineEnd(buffer));
}

/** The index one character (code point) before `i`. */
export function before(text: string, i: number): number {
  if (i <= 0) return 0;
  const low = text.charCodeAt(i - 1);
  return i >= 2 && low >= 0xdc00 && low <= 0xdfff ? i - 2 : i - 1;
}

/** The index one character (code point) after `i`. */
export function after(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const high = text.charCodeAt(i);
  return high >= 0xd800 && high <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}
