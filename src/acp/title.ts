/** A session's title from its first prompt, for `session_info_update`. */
import type { UserContent } from "../session/events.ts";

const MAX_TITLE = 80;

/** The first non-blank line of the prompt's text (or the first link's name), shortened. */
export function titleOf(content: readonly UserContent[]): string | undefined {
  for (const block of content) {
    const line =
      block.type === "text" ? block.text.split("\n").find((l) => l.trim() !== "") : block.name;
    const title = line?.trim().replace(/\s+/g, " ");
    if (title !== undefined && title !== "") {
      return title.length <= MAX_TITLE ? title : `${title.slice(0, MAX_TITLE - 1)}…`;
    }
  }
  return undefined;
}
