/**
 * `session/prompt` content → the agent's user content. dsh advertises no image, audio or
 * embedded-context support, so only text and resource links are accepted; anything else, or a
 * prompt with nothing in it, is invalid params before any model request.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { InvalidInputError } from "../errors.ts";
import type { UserContent } from "../session/events.ts";

/** Converts a prompt; throws InvalidInputError for unsupported blocks or an empty prompt. */
export function userContentOf(prompt: readonly acp.ContentBlock[]): UserContent[] {
  const content = prompt.map(toUserContent);
  const empty = content.every((c) => c.type === "text" && c.text.trim() === "");
  if (empty) throw new InvalidInputError("the prompt is empty");
  return content;
}

function toUserContent(block: acp.ContentBlock, index: number): UserContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "resource_link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.title == null ? {} : { title: block.title }),
        ...(block.mimeType == null ? {} : { mimeType: block.mimeType }),
      };
    case "image":
    case "audio":
    case "resource":
      throw new InvalidInputError(
        `${block.type} content is not supported (dsh accepts text and resource_link blocks)`,
        { index, type: block.type },
      );
    default: {
      const exhaustive: never = block;
      return exhaustive;
    }
  }
}
