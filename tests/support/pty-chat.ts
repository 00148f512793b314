/**
 * `dsh chat` under a real pseudo-terminal, for the terminal suites: keys a person types, and
 * the requests the scripted model server received from the moment a test starts.
 */
import type { CliProject, CliRig } from "./cli.ts";
import { type PtyProcess, spawnPty } from "./pty.ts";

export const CTRL_C = "\u0003";
export const CTRL_D = "\u0004";
export const ESC = "\u001b";
export const PASTE = (text: string) => `\u001b[200~${text}\u001b[201~`;
/** The chat's line after each turn ("context 15 / 1,048,576 tokens (0%) · $0.0000"). */
export const TURN_ENDED = " tokens (";

export interface ChatOptions {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  readonly cols?: number;
  readonly rows?: number;
  /** Where dsh starts (the project's directory by default). */
  readonly cwd?: string;
}

/** `dsh chat ARGS` in `project`. */
export function chatPty(rig: CliRig, project: CliProject, options: ChatOptions = {}): PtyProcess {
  return spawnPty([rig.binary, "chat", ...(options.args ?? [])], {
    cwd: options.cwd ?? project.cwd,
    env: { ...project.env, ...options.env },
    ...(options.cols === undefined ? {} : { cols: options.cols }),
    ...(options.rows === undefined ? {} : { rows: options.rows }),
  });
}

/** Requests counted from now (a rig's server is shared by a whole file). */
export function requestsFromNow(rig: CliRig) {
  const base = rig.server.requests.length;
  return {
    /** Requests made before: `base + n` is the index of request `n` from now. */
    base,
    received: (n: number) => rig.server.received(base + n),
    aborted: (n: number) => rig.server.aborted(base + n),
    /** The last user message of request `n`: its text, or its content parts. */
    lastUserMessage: async (n: number): Promise<unknown> => {
      const request = await rig.server.received(base + n);
      const messages = request.body.messages as { role: string; content: unknown }[];
      return messages.filter((m) => m.role === "user").at(-1)?.content;
    },
  };
}

/** The rows a person sees, as one string, for `toContain` checks. */
export function shown(pty: PtyProcess): string {
  return pty.screen().join("\n");
}
