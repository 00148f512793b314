/**
 * A tokenizer-free token estimate: about four UTF-8 bytes per token, which is close for
 * English prose and code with DeepSeek's and OpenAI's tokenizers and errs high for CJK text.
 * Used only where no server count exists yet (what was appended since the last request, a
 * tool output's budget); reported usage always wins.
 */

const BYTES_PER_TOKEN = 4;
const encoder = new TextEncoder();

/** Estimated tokens of `text`; 0 for "". */
export function estimateTokens(text: string): number {
  if (text === "") return 0;
  return Math.ceil(encoder.encode(text).length / BYTES_PER_TOKEN);
}

/** The UTF-8 bytes that `tokens` estimated tokens stand for. */
export function bytesForTokens(tokens: number): number {
  return Math.max(0, Math.floor(tokens)) * BYTES_PER_TOKEN;
}
