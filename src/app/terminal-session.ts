/**
 * Composition for the terminal surfaces (`dsh chat`, `dsh exec`): config with the flags applied,
 * one composition, and the session to talk in: created, resumed by id, or the directory's
 * newest (`--continue`).
 */
import { join, resolve } from "node:path";
import type { SessionSeams, TerminalSession } from "../cli/types.ts";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import * as v from "valibot";
import { authFilePath } from "../auth/key-store.ts";
import { createLogger } from "../log.ts";
import { isWithin } from "../paths.ts";
import { describeRule } from "../rules/match.ts";
import { PresetId } from "../permission/knobs.ts";
import type { SessionStore } from "../session/types.ts";
import { type Flags, UsageError } from "./args.ts";
import { compose } from "./compose.ts";
import { projectRootOf } from "../rules/project.ts";
import { type Config, loadConfig } from "./config.ts";
import { createMentionReader } from "./mention-reader.ts";
import { createTerminalLogger } from "./terminal-logger.ts";

export interface TerminalSurroundings {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stderr: { write(text: string): void };
}

/**
 * Loads the config (flags win), composes, and creates or resumes the session.
 * @throws UsageError for an unknown `--permission` preset; ConfigError for a bad config;
 *   NotFoundError / InvalidInputError (with the fix) for a session that cannot be resumed here
 */
export async function openTerminalSession(
  surroundings: TerminalSurroundings,
  flags: Flags,
  seams: SessionSeams,
): Promise<TerminalSession> {
  const { env } = surroundings;
  const cwd = resolve(surroundings.cwd, flags.cwd ?? ".");
  if (flags.permission !== undefined && !v.is(PresetId, flags.permission)) {
    throw new UsageError(
      `unknown permission preset "${flags.permission}" (${PresetId.options.join(", ")})`,
    );
  }
  const config = loadConfig(env, { model: flags.model, permission: flags.permission });
  // Into a file, everything; on the terminal, warnings and errors, as one plain line each.
  const logger =
    config.log === "stderr"
      ? createTerminalLogger(surroundings.stderr)
      : createLogger({ destination: config.log, level: "info" });
  const composition = compose({
    config,
    env,
    logger,
    answerers: seams.answerers,
    questioners: seams.questioners,
  });
  try {
    const id = flags.continue ? await newestIn(composition.store, cwd) : flags.resume;
    // Relative to where dsh was started, as a shell user means them.
    const additionalDirectories = (flags.addDirs ?? []).map((dir) =>
      resolve(surroundings.cwd, dir),
    );
    let handle =
      id === undefined
        ? await composition.service.create({ cwd, additionalDirectories })
        : await resumeHere(composition.store, id, cwd, flags, (target) =>
            composition.service.resume(id, { cwd: target, additionalDirectories }),
          );
    if (flags.model !== undefined || flags.permission !== undefined) {
      const defaults = composition.defaults;
      handle.configure({
        ...(flags.model !== undefined ? { model: defaults.model } : {}),
        ...(flags.permission !== undefined ? { knobs: defaults.knobs } : {}),
      });
    }
    return {
      get handle() {
        return handle;
      },
      async startNew() {
        const next = await composition.service.create({
          cwd: handle.cwd,
          additionalDirectories: handle.directories(),
        });
        next.configure(handle.settings());
        const previous = handle;
        handle = next;
        await previous[Symbol.asyncDispose]();
      },
      async startFork(history) {
        const next = await composition.service.fork({ cwd: handle.cwd, history });
        const previous = handle;
        handle = next;
        await previous[Symbol.asyncDispose]();
      },
      readMention: createMentionReader(() => handle.cwd, composition.secrets),
      keyOrigin: keyOrigin(config, env),
      rules: () =>
        composition.rules
          .list()
          .filter((saved) => isWithin(saved.project, handle.cwd))
          .map((saved) => describeRule(saved.rule)),
      models: composition.models,
      sandbox: () => composition.runner.sandbox(),
      allowedHosts: async () =>
        composition.network.allowedHosts(handle.sessionId, projectRootOf(handle.cwd)),
      defaults: composition.defaults,
      historyFile: join(config.home, "history.jsonl"),
      baseUrl: (model) =>
        composition.models().find((info) => info.id === model)?.baseUrl ?? config.baseUrl,
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

/** Where the API key comes from, in words, for the terminal's messages; undefined: none. */
function keyOrigin(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  switch (config.apiKeySource) {
    case "env":
      return (env.DSH_API_KEY ?? "").trim() !== "" ? "DSH_API_KEY" : "DEEPSEEK_API_KEY";
    case "stored":
      return `stored by dsh login in ${authFilePath(config.home)}`;
    case "none":
      return undefined;
    default: {
      const unhandled: never = config.apiKeySource;
      return unhandled;
    }
  }
}

/** The id of the directory's most recently updated session. */
async function newestIn(store: SessionStore, cwd: string): Promise<string> {
  const newest = (await store.list()).find((session) => session.cwd === cwd);
  if (newest === undefined)
    throw new NotFoundError(`no saved session in ${cwd} to continue; start one with: dsh`);
  return newest.id;
}

/** Resumes `id` in `cwd`; a session of another directory is refused with the flag that fixes it. */
async function resumeHere<T>(
  store: SessionStore,
  id: string,
  cwd: string,
  flags: Flags,
  resume: (cwd: string) => Promise<T>,
): Promise<T> {
  try {
    return await resume(cwd);
  } catch (error) {
    if (!(error instanceof InvalidInputError) || flags.cwd !== undefined) throw error;
    const saved = (await store.list()).find((session) => session.id === id);
    if (saved === undefined || saved.cwd === cwd) throw error;
    throw new InvalidInputError(
      `session ${id} belongs to ${saved.cwd}; resume it there: dsh --resume ${id} --cwd ${saved.cwd}`,
    );
  }
}
