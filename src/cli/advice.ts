/**
 * A failed turn as one line of advice: what failed, why when known, what to do. The message
 * comes from the typed error; the fix is added here from its code, because only the terminal
 * knows the commands and flags a person can type.
 */
import type { LoggedError } from "../agent/types.ts";
import { terminalText } from "../render/terminal-text.ts";

export interface AdviceContext {
  /** The model the turn used. */
  readonly model: string;
  /** The endpoint it was sent to. */
  readonly baseUrl: string;
  /** Where the API key came from, in words ("DSH_API_KEY", "stored by dsh login in …"). */
  readonly keyOrigin?: string;
}

const DEEPSEEK = "https://api.deepseek.com";

// A runtime's debugging hint is no use to the person reading the line.
const RUNTIME_HINTS = [/\s*For more information, pass `verbose: true`[^.]*\.?/gi];

/** One line for a turn that ended `error`: the message, then the fix when one is known. */
export function adviceFor(error: LoggedError, context: AdviceContext): string {
  let message = terminalText(error.message);
  for (const hint of RUNTIME_HINTS) message = message.replace(hint, "");
  message = message.replace(/\s*\n\s*/g, " ").trim();
  const fix = fixFor(error.code, message, context);
  // A message that already names the fix's command or setting keeps its own wording.
  return fix === undefined || message.includes(fix.names) ? message : `${message}; ${fix.text}`;
}

function fixFor(
  code: string,
  message: string,
  context: AdviceContext,
): { readonly text: string; readonly names: string } | undefined {
  switch (code) {
    case "missing_api_key":
      return { text: "run `dsh login` to store a key, or set DSH_API_KEY", names: "dsh login" };
    case "auth": {
      const origin = context.keyOrigin;
      if (origin === undefined || origin.startsWith("stored"))
        return {
          text: `the key was ${origin ?? "stored by dsh login"}: run \`dsh login\` to store one that works, or set DSH_API_KEY`,
          names: "dsh login",
        };
      return {
        text: `the key is the one in ${origin}: fix or unset it (then the key \`dsh login\` stores is used)`,
        names: origin,
      };
    }
    case "not_an_api":
      return {
        text: `DSH_BASE_URL (${context.baseUrl}) should be the URL that /chat/completions hangs off (for DeepSeek ${DEEPSEEK}); \`dsh doctor\` checks it`,
        names: "DSH_BASE_URL",
      };
    case "bad_request":
      if (!/model/i.test(message)) return undefined;
      return {
        text: `the endpoint rejected model "${context.model}": \`dsh doctor\` lists the models it serves; pick one with --model ID or DSH_MODEL`,
        names: "--model",
      };
    case "network":
      return {
        text: `check DSH_BASE_URL (${context.baseUrl}) and the network`,
        names: "DSH_BASE_URL",
      };
    default:
      return undefined;
  }
}
