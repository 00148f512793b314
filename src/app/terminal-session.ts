/**
 * Composition for the terminal surfaces (`dsh chat`, `dsh exec`): config with the flags applied,
 * one composition, and the session to talk in, created or resumed.
 */
import { resolve } from "node:path";
import type { SessionSeams, TerminalSession } from "../cli/types.ts";
import { createLogger } from "../log.ts";
import type { Flags } from "./args.ts";
import { compose } from "./compose.ts";
import { loadConfig } from "./config.ts";

export interface TerminalSurroundings {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/**
 * Loads the config (flags win), composes, and creates or resumes the session.
 * @throws ConfigError for a bad config; the service's errors for a bad `--resume` or `--cwd`
 */
export async function openTerminalSession(
  surroundings: TerminalSurroundings,
  flags: Flags,
  seams: SessionSeams,
): Promise<TerminalSession> {
  const { env } = surroundings;
  const config = loadConfig(env, { model: flags.model, permission: flags.permission });
  // In the terminal only warnings and errors go to stderr, to keep the chat readable.
  const logger = createLogger({
    destination: config.log,
    level: config.log === "stderr" ? "warn" : "info",
  });
  const composition = compose({
    config,
    env,
    logger,
    answerers: seams.answerers,
    questioners: seams.questioners,
  });
  const cwd = resolve(surroundings.cwd, flags.cwd ?? ".");
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
      handle,
      models: composition.models,
      defaults: composition.defaults,
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
