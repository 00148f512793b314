/**
 * Advertising a session's slash commands: the first `available_commands_update` after the
 * session opens, then a new one whenever its library changes (a skill or command file added, an
 * MCP server up late or gone), never more than once a second and never one that says nothing
 * new. A first list sent before the library's first scan ended is completed as soon as it ends:
 * that is the session's set arriving, not a change of it.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentHandle } from "../agent/types.ts";
import { untilAborted } from "../abortable.ts";
import { sessionCommands } from "../commands/index.ts";
import { availableCommandsUpdate } from "./commands.ts";

/** The shortest time between two advertisements. */
export const COMMANDS_MIN_INTERVAL_MS = 1_000;
/** How long the first advertisement of a reopened session waits for the library's first scan. */
const READY_WAIT_MS = 1_000;

export interface CommandAdvertiserDeps {
  readonly handle: AgentHandle;
  readonly send: (updates: readonly acp.SessionUpdate[]) => Promise<void>;
  /** Sends what `updates` gives then, `ms` from now or before anything else the session sends. */
  readonly sendLater: (ms: number, updates: () => readonly acp.SessionUpdate[]) => void;
}

export interface CommandAdvertiser {
  /**
   * The first advertisement: `delayMs` from now (after `session/new`, which Zed registers late),
   * or at once after the library's first scan (bounded), resolving once it is written.
   */
  first(delayMs?: number): Promise<void>;
  /** No advertisement after this. */
  stop(): void;
}

export function createCommandAdvertiser(deps: CommandAdvertiserDeps): CommandAdvertiser {
  const { library } = deps.handle;
  let lastText: string | undefined;
  let lastAt = 0;
  /** Whether the last list went out before the library's first scan ended. */
  let lastEarly = false;
  let scanned = false;
  void library.ready().then(() => {
    scanned = true;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  /** The update for the commands offered now, remembered as the last one advertised. */
  const current = (): acp.SessionUpdate[] => {
    const update = availableCommandsUpdate(sessionCommands(deps.handle));
    lastText = JSON.stringify(update);
    lastAt = performance.now();
    lastEarly = !scanned;
    return [update];
  };

  const again = () => {
    timer = undefined;
    if (stopped) return;
    const update = availableCommandsUpdate(sessionCommands(deps.handle));
    if (JSON.stringify(update) === lastText) return;
    void deps.send(current());
  };

  const unsubscribe = library.subscribe(() => {
    // Before the first advertisement, that one carries the change.
    if (stopped || lastText === undefined || timer !== undefined) return;
    const wait = lastEarly ? 0 : Math.max(0, lastAt + COMMANDS_MIN_INTERVAL_MS - performance.now());
    timer = setTimeout(again, wait);
  });

  return {
    async first(delayMs) {
      if (delayMs !== undefined) {
        deps.sendLater(delayMs, () => (stopped ? [] : current()));
        return;
      }
      await untilAborted(library.ready(), AbortSignal.timeout(READY_WAIT_MS));
      if (!stopped) await deps.send(current());
    },
    stop() {
      stopped = true;
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
