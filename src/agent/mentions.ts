/**
 * A prompt's links to project files, read into the prompt before it is logged: the model sees
 * the file as the user saw it when they mentioned it, and a reload sends the same request.
 */
import type { UserContent } from "../session/events.ts";
import { boundEmbeddedText } from "../tools/embedded-text.ts";

/** Reads a linked file's text, or undefined when it should only be named. Never throws. */
export type MentionReader = (uri: string) => Promise<string | undefined>;

/** `content` with each readable `resource_link` replaced by the file's text and uri. */
export async function embedMentionedFiles(
  content: readonly UserContent[],
  read: MentionReader,
): Promise<UserContent[]> {
  return Promise.all(
    content.map(async (block): Promise<UserContent> => {
      if (block.type !== "resource_link") return block;
      const text = await read(block.uri);
      if (text === undefined) return block;
      return {
        type: "resource",
        uri: block.uri,
        text: boundEmbeddedText(block.uri, text),
        ...(block.mimeType == null ? {} : { mimeType: block.mimeType }),
      };
    }),
  );
}
