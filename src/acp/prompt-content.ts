/**
 * The user-content codec, both ways. `session/prompt` content → the agent's user content: text,
 * resource links, embedded resources and images are accepted; audio, or a prompt with nothing in
 * it, is invalid params before any model request. Embedded text is bounded like a file read; a
 * binary resource is named, not inlined; an image must be a common format whose bytes match its
 * MIME type. And back, for a replayed transcript: each logged block as the ACP block it came
 * from, an image as a placeholder.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { InvalidInputError } from "../errors.ts";
import type { UserContent } from "../session/events.ts";
import { uriName } from "../session/folds.ts";
import { MAX_EMBEDDED_CHARS, boundEmbeddedText } from "../file-safety/embedded-text.ts";
import { checkImage } from "./image-content.ts";

export { MAX_EMBEDDED_CHARS };

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
    case "resource":
      return embedded(block.resource);
    case "image": {
      // Line-wrapped base64 (MIME style) is the same image.
      const data = block.data.replace(/\s+/g, "");
      checkImage(data, block.mimeType, index);
      return {
        type: "image",
        mimeType: block.mimeType.toLowerCase(),
        data,
        ...(block.uri == null ? {} : { uri: block.uri }),
      };
    }
    case "audio":
      throw new InvalidInputError("audio content is not supported", { index, type: block.type });
    default: {
      const exhaustive: never = block;
      return exhaustive;
    }
  }
}

function embedded(resource: acp.EmbeddedResourceResource): UserContent {
  const mimeType = resource.mimeType == null ? {} : { mimeType: resource.mimeType };
  if (!("text" in resource)) {
    return { type: "resource_link", uri: resource.uri, name: uriName(resource.uri), ...mimeType };
  }
  return {
    type: "resource",
    uri: resource.uri,
    text: boundEmbeddedText(resource.uri, resource.text),
    ...mimeType,
  };
}

/** How a replayed transcript shows an image the user sent (its bytes stay in the log). */
export const IMAGE_PLACEHOLDER = "[image]";

/** A logged user block as the ACP content block it came from (an image as a placeholder). */
export function userBlock(content: UserContent): acp.ContentBlock {
  switch (content.type) {
    case "text":
      return { type: "text", text: content.text };
    case "resource_link":
      return {
        type: "resource_link",
        uri: content.uri,
        name: content.name,
        ...(content.title == null ? {} : { title: content.title }),
        ...(content.mimeType == null ? {} : { mimeType: content.mimeType }),
      };
    case "resource":
      return {
        type: "resource",
        resource: {
          uri: content.uri,
          text: content.text,
          ...(content.mimeType == null ? {} : { mimeType: content.mimeType }),
        },
      };
    case "image":
      // The log keeps the image for the model; the transcript shows a short placeholder.
      return { type: "text", text: IMAGE_PLACEHOLDER };
    default: {
      const exhaustive: never = content;
      return exhaustive;
    }
  }
}
