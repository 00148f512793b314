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
  later("diff", "What this session changed in the workspace", "`git diff` shows what changed"),
  later(
    "undo",
    "Restore the files the last turn changed",
    "`git diff` and `git checkout -- FILE` undo a change",
  ),
  later("rewind", "Go back N turns, files and conversation", "start over with /new", {
    hint: "number of prompt turns",
    argument: "N",
  }),
  later("fork", "A new session holding this one's history", "/new starts a fresh session"),
  later(
    "add-dir",
    "Let the session work in one more directory",
    "start dsh in a directory that holds both",
    { hint: "directory", argument: "DIR" },
  ),
];
