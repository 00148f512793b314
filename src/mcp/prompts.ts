/**
 * MCP prompts as slash commands: a server's prompt list, the arguments a command line gives a
 * prompt (by position in the order the prompt declares them, then `name=value`), and a
 * `prompts/get` result as the content of the user's turn. Only SDK types are imported here:
 * the commands module uses the argument helpers without loading the SDK.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { InvalidInputError } from "../errors.ts";
import type { UserContent } from "../session/events.ts";
import { splitArguments } from "../argument-words.ts";
import { base64Bytes } from "./result.ts";

/** One prompt a server offers. */
export interface McpPrompt {
  readonly name: string;
  readonly description?: string;
  readonly arguments: readonly McpPromptArgument[];
}

export interface McpPromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required: boolean;
}

/** Pages of `prompts/list` read at most, and prompts kept of one server. */
const MAX_PROMPT_PAGES = 20;
const MAX_PROMPTS = 200;
/** Characters of text a prompt's content may bring into the turn; the rest is cut. */
export const MAX_PROMPT_CHARS = 400_000;

/** The server's prompts; none when it offers no prompts capability. */
export async function listPrompts(client: Client, signal: AbortSignal): Promise<McpPrompt[]> {
  if (client.getServerCapabilities()?.prompts === undefined) return [];
  const prompts: McpPrompt[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PROMPT_PAGES && prompts.length < MAX_PROMPTS; page++) {
    const result = await client.listPrompts(cursor === undefined ? {} : { cursor }, {
      signal,
      timeout: 2 ** 31 - 1,
    });
    for (const prompt of result.prompts) {
      prompts.push({
        name: prompt.name,
        ...(prompt.description == null ? {} : { description: prompt.description }),
        arguments: (prompt.arguments ?? []).map((argument) => ({
          name: argument.name,
          ...(argument.description == null ? {} : { description: argument.description }),
          required: argument.required === true,
        })),
      });
    }
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return prompts.slice(0, MAX_PROMPTS);
}

/** The arguments a command line shows: `<required> [optional]`, in declared order. */
export function promptUsage(prompt: McpPrompt): string {
  return prompt.arguments
    .map((argument) => (argument.required ? `<${argument.name}>` : `[${argument.name}]`))
    .join(" ");
}

/**
 * The arguments `text` gives `prompt`: each `name=value` word whose name the prompt declares
 * sets that argument; the other words fill the remaining arguments in declared order, the last
 * taking what is left. Throws InvalidInputError when a required argument is missing, or when
 * words are left over for a prompt that takes no arguments.
 */
export function promptArguments(
  command: string,
  prompt: McpPrompt,
  text: string,
): Record<string, string> {
  const declared = new Set(prompt.arguments.map((argument) => argument.name));
  const values: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of splitArguments(text)) {
    const eq = word.indexOf("=");
    const name = eq > 0 ? word.slice(0, eq) : "";
    if (declared.has(name) && values[name] === undefined) values[name] = word.slice(eq + 1);
    else positional.push(word);
  }
  const open = prompt.arguments.filter((argument) => values[argument.name] === undefined);
  const usage = `usage: /${command} ${promptUsage(prompt)}`.trimEnd();
  if (open.length === 0 && positional.length > 0) {
    throw new InvalidInputError(`/${command} takes no more arguments (${usage})`);
  }
  for (const [i, argument] of open.entries()) {
    const last = i === open.length - 1;
    const value = last ? positional.slice(i).join(" ") : positional[i];
    if (value !== undefined && value !== "") values[argument.name] = value;
  }
  const missing = prompt.arguments.filter((a) => a.required && values[a.name] === undefined);
  if (missing.length > 0) {
    const names = missing.map((argument) => argument.name).join(", ");
    throw new InvalidInputError(`/${command} needs ${names} (${usage})`);
  }
  return values;
}

type PromptBlock = GetPromptResult["messages"][number]["content"];

/**
 * A `prompts/get` result as the turn's content, message after message: text, images and
 * embedded text resources as they are, a resource link as a link; audio and binary resources
 * are named, not inlined. Text past `MAX_PROMPT_CHARS` is cut with a note.
 */
export function promptContent(result: GetPromptResult): UserContent[] {
  let budget = MAX_PROMPT_CHARS;
  const bounded = (text: string): string => {
    const kept = text.slice(0, Math.max(0, budget));
    budget -= kept.length;
    return kept.length === text.length
      ? text
      : `${kept}\n[cut: the prompt holds ${text.length - kept.length} more characters]`;
  };
  const content: UserContent[] = [];
  for (const message of result.messages) {
    const block = blockContent(message.content);
    if (block.type === "text") content.push({ ...block, text: bounded(block.text) });
    else if (block.type === "resource") content.push({ ...block, text: bounded(block.text) });
    else content.push(block);
  }
  return content;
}

function blockContent(block: PromptBlock): UserContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", mimeType: block.mimeType, data: block.data };
    case "audio":
      return {
        type: "text",
        text: `[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes, not included]`,
      };
    case "resource": {
      const { resource } = block;
      if ("text" in resource) {
        return {
          type: "resource",
          uri: resource.uri,
          text: resource.text,
          ...(resource.mimeType == null ? {} : { mimeType: resource.mimeType }),
        };
      }
      const mime = resource.mimeType == null ? "" : `, ${resource.mimeType}`;
      return {
        type: "text",
        text: `[resource: ${resource.uri}${mime}, ${base64Bytes(resource.blob)} bytes, not included]`,
      };
    }
    case "resource_link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.mimeType == null ? {} : { mimeType: block.mimeType }),
      };
    default: {
      const unknown: { type: string } = block;
      return { type: "text", text: `[${unknown.type} content, not included]` };
    }
  }
}
