/** Shared set-up of the terminal surfaces: config, composition and the session to talk in. */
import { resolve } from "node:path";
import type { AgentHandle } from "../agent/types.ts";
import { compose, type Composition } from "../app/compose.ts";
import { loadConfig } from "../app/config.ts";
import type { ApprovalAnswerer } from "../approval/types.ts";
import type { InteractionProvider } from "../interaction/types.ts";
import { createLogger } from "../log.ts";
import type { Flags } from "./args.ts";
import type { CliIo } from "./io.ts";

export interface TerminalSession extends AsyncDisposable {
  readonly composition: Composition;
  readonly handle: AgentHandle;
}

/** Loads the config (flags win), composes, and creates or resumes the session. */
export async function openTerminalSession(
  io: CliIo,
  flags: Flags,
  answerers: readonly ApprovalAnswerer[],
  questioners: readonly InteractionProvider[] = [],
): Promise<TerminalSession> {
  const config = loadConfig(io.env, { model: flags.model, permission: flags.permission });
  // In the terminal only warnings and errors go to stderr, to keep the chat readable.
  const logger = createLogger({
    destination: config.log,
    level: config.log === "stderr" ? "warn" : "info",
  });
  const composition = compose({ config, env: io.env, logger, answerers, questioners });
  const cwd = resolve(io.cwd, flags.cwd ?? ".");
  try {
    const handle = flags.resume
      ? await composition.service.resume(flags.resume, { cwd })
      : await composition.service.create({ cwd });
    if (flags.model !== undefined || flags.permission !== undefined) {
      const defaults = composition.defaults;
      handle.configure({
        ...(flags.model !== undefined ? { model: defaults.model } : {}),
        ...(flags.permission !== undefined ? { knobs: defaults.knobs } : {}),
      });
    }
    return {
      composition,
      handle,
      async [Symbol.asyncDispose]() {
        await handle[Symbol.asyncDispose]();
        await composition[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    await composition[Symbol.asyncDispose]();
    throw error;
  }
}
