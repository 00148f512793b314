/** `/compact` and `/init`: commands that run a turn of their own, as the surface runs prompts. */
import type { SlashCommand } from "./types.ts";

/** What `/init` asks of the model. */
export const INIT_PROMPT = [
  "Write or improve AGENTS.md in the working directory: the instructions coding agents read before they work in this project.",
  "First look around: the README, the build and package files, CI configuration, and the layout of the source and tests. If AGENTS.md exists, read it and improve it, keeping what is still true.",
  "Cover what the project is, the exact commands to build, test, lint and run it, where things live, and the conventions a newcomer must follow. Keep it short and concrete: no generic advice, nothing you did not find in the project.",
  "Then say in two or three lines what you wrote or changed.",
].join("\n\n");

export const compactCommand: SlashCommand = {
  name: "compact",
  description: "Compact the conversation now: a summary of what is done, decided and pending",
  hint: "what the summary should focus on (optional)",
  argument: "focus",
  async run(args, session) {
    const focus = args === "" ? {} : { focus: args };
    const outcome = await session.runTurn((signal) => session.handle.compact({ ...focus, signal }));
    return { type: "turn", outcome };
  },
};

export const initCommand: SlashCommand = {
  name: "init",
  description: "Write or improve AGENTS.md for this project",
  async run(_args, session) {
    const content = [{ type: "text" as const, text: INIT_PROMPT }];
    const outcome = await session.runTurn((signal) => session.handle.prompt(content, signal));
    return { type: "turn", outcome };
  },
};
