/**
 * A prompt's links to project files, read into the prompt before it is logged: the model sees
 * the file as the user saw it when they mentioned it, and a reload sends the same request.
 */
import type { UserContent } from "../session/events.ts";
import { uriName } from "../session/folds.ts";
import { boundEmbeddedText } from "../file-safety/embedded-text.ts";

/** Reads a linked file's text, or undefined when it should only be named. Never throws. */
export type MentionReader = (uri: string) => Promise<string | undefined>;

/** Whether embedded text for `uri` must be left out (the block is then only named). */
export type EmbeddedScreen = (uri: string) => boolean;

/**
 * Characters read into one prompt across all its links; links past the budget stay named
 * (the model can read them itself), so a prompt of a thousand links cannot flood the log.
 */
export const MENTION_BUDGET_CHARS = 400_000;

/**
 * `content` with readable `resource_link`s replaced by the file's text and uri, in order, and
 * embedded text that `screen` refuses replaced by a link naming it.
 */
export async function embedMentionedFiles(
  content: readonly UserContent[],
  read: MentionReader,
  screen: EmbeddedScreen = () => false,
): Promise<UserContent[]> {
  let budget = MENTION_BUDGET_CHARS;
  const embedded: UserContent[] = [];
  for (const block of content) {
    if (block.type === "resource" && screen(block.uri)) {
      embedded.push({
        type: "resource_link",
        uri: block.uri,
        name: uriName(block.uri),
        ...(block.mimeType == null ? {} : { mimeType: block.mimeType }),
      });
      continue;
    }
    const text = block.type === "resource_link" && budget > 0 ? await read(block.uri) : undefined;
    if (block.type !== "resource_link" || text === undefined) {
      embedded.push(block);
      continue;
    }
    const bounded = boundEmbeddedText(block.uri, text);
    budget -= bounded.length;
    embedded.push({
      type: "resource",
      uri: block.uri,
      text: bounded,
      ...(block.mimeType == null ? {} : { mimeType: block.mimeType }),
    });
  }
  return embedded;
}
