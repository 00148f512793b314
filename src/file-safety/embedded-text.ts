/** How much of a file's text a prompt may carry, whether the client embedded it or dsh read it. */

/** Characters kept of one embedded resource: as many as one `read_file` call returns. */
export const MAX_EMBEDDED_CHARS = 200_000;

/** `text` cut to MAX_EMBEDDED_CHARS, with a line saying how much of `uri` was left out. */
export function boundEmbeddedText(uri: string, text: string): string {
  if (text.length <= MAX_EMBEDDED_CHARS) return text;
  const rest = text.length - MAX_EMBEDDED_CHARS;
  return `${text.slice(0, MAX_EMBEDDED_CHARS)}\n[cut: ${rest} more characters of ${uri}; read the rest with read_file]`;
}
