/** Client-sent text quoted back in an error, kept short so the reply stays readable. */

/** The most of a client's value an error message quotes. */
const QUOTED_LENGTH = 200;

/** `text` as an error quotes it: whole when short, else its start and an ellipsis. */
export function quoted(text: string): string {
  return text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text;
}
