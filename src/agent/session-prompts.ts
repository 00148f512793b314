/**
 * A session's system message and its subagents' environment lines: made once, the same bytes
 * for every request (the model's cached prefix), and made again only when a directory is
 * added, so the next request names it, reads its `AGENTS.md` and lists its skills.
 */
import type { ChatMessage } from "../llm/types.ts";
import type { Logger } from "../log.ts";

type SystemMessage = Extract<ChatMessage, { role: "system" }>;

/** A session's prompts once a directory is added. */
export interface AddedPrompts {
  readonly system: string;
  readonly subagents: string;
}

export interface SessionPromptsDeps {
  readonly systemPrompt: Promise<string>;
  readonly systemPromptAdding?: (dir: string, all: readonly string[]) => Promise<AddedPrompts>;
  readonly tasks?: { readonly environment: string };
  readonly logger: Logger;
}

export interface SessionPrompts {
  system(): Promise<SystemMessage>;
  environment(): string;
  /** `dir` was added, `all` being every added directory now. */
  added(dir: string, all: readonly string[]): void;
}

/** `ready` resolves once the system message may be made (the session's tools are set). */
export function createSessionPrompts(
  deps: SessionPromptsDeps,
  ready: () => Promise<unknown> | undefined,
): SessionPrompts {
  let system: Promise<SystemMessage> | undefined;
  let environment = deps.tasks?.environment ?? "";
  const current = () => {
    system ??= Promise.all([deps.systemPrompt, ready()]).then(([text]) => message(text));
    return system;
  };
  return {
    system: current,
    environment: () => environment,
    added(dir, all) {
      const adding = deps.systemPromptAdding;
      if (adding === undefined) return;
      const before = current();
      const copy = [...all];
      // After the message before it: two directories added one after the other are read in turn.
      const made = before.then(() => adding(dir, copy));
      system = made.then(
        (prompts) => {
          environment = prompts.subagents;
          return message(prompts.system);
        },
        (error: unknown) => {
          // The message stays as it was: the session goes on without the new directory's lines.
          deps.logger.warn("the system prompt was not made again for an added directory", {
            error,
          });
          return before;
        },
      );
    },
  };
}

function message(content: string): SystemMessage {
  return { role: "system", content };
}
