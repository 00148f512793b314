/**
 * Commands people know from other agents that dsh will offer but does not yet: recognised, so
 * they never go to the model as a prompt, and answered with what to do meanwhile.
 */
import type { SlashCommand } from "./types.ts";

function later(
  name: string,
  description: string,
  meanwhile: string,
  input?: { readonly hint: string; readonly argument: string },
): SlashCommand {
  return {
    name,
    description,
    ...input,
    async run() {
      return {
        type: "reply",
        text: `/${name} is not available yet in this version of dsh; ${meanwhile}`,
      };
    },
  };
}

/** Recognised on both surfaces, advertised on neither until they work. */
export const LATER_COMMANDS: readonly SlashCommand[] = [
  later(
    "add-dir",
    "Let the session work in one more directory",
    "start dsh in a directory that holds both",
    { hint: "directory", argument: "DIR" },
  ),
];
