/**
 * The agent as `dsh acp` serves it: composed only when first needed, so `initialize` is
 * answered without evaluating the agent, its tools, the model client or the sandbox, and a new
 * session is answered once its log is made, its handle opening after the answer.
 */
import type { AgentHandle, AgentService, StartedSession } from "../agent/types.ts";
import type { ModelCatalog } from "../llm/catalog.ts";
import type { Logger } from "../log.ts";
import type { SessionStore } from "../session/types.ts";
import type { ComposeOptions, Composition } from "./compose.ts";
import type { Config } from "./config.ts";
import { sessionDefaults } from "./session-defaults.ts";

/** How long after `initialize` the agent is composed anyway when no session request came. */
const IDLE_COMPOSE_MS = 200;
/**
 * How long after the last `session/new` answer the waiting handles open, unless a request
 * needs one first: well within the 100 ms after which the command list is sent.
 */
const QUIET_MS = 20;

export interface LazyAgentOptions extends Omit<ComposeOptions, "catalog" | "store"> {
  readonly config: Config;
  readonly logger: Logger;
  readonly catalog: ModelCatalog;
}

export interface LazyAgent extends AsyncDisposable {
  readonly service: AgentService;
  /** The composition, made at the first call; requests that ask together share it. */
  composed(): Promise<Composition>;
  /**
   * Readies a new session's answer (the store's modules, a small chunk) now, and composes
   * after a short idle time unless a session request comes first.
   */
  prepare(): void;
}

export function createLazyAgent(options: LazyAgentOptions): LazyAgent {
  const { config, logger, catalog } = options;
  let composeModule: Promise<typeof import("./compose.ts")> | undefined;
  let startModule: Promise<typeof import("./session-start.ts")> | undefined;
  let store: Promise<SessionStore> | undefined;
  let composition: Composition | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;

  const loadStart = () => {
    startModule ??= import("./session-start.ts");
    return startModule;
  };
  // One store for the sessions answered early and for the agent: one writer per session.
  const storeOf = () => {
    store ??= loadStart().then((m) => m.createSessionStore({ home: config.home, logger }));
    return store;
  };
  const composed = async (): Promise<Composition> => {
    clearTimeout(idle);
    composeModule ??= import("./compose.ts");
    const [{ compose }, sessions] = await Promise.all([composeModule, storeOf()]);
    // Checked after the await, so requests that arrive together share one composition.
    composition ??= compose({ ...options, store: sessions });
    return composition;
  };

  // Answered sessions whose handles wait for a quiet moment, and the timer that brings it.
  const waiting = new Set<() => void>();
  let quiet: ReturnType<typeof setTimeout> | undefined;
  const openWaiting = () => {
    for (const open of waiting) open();
  };

  const start = async (request: Parameters<AgentService["start"]>[0]): Promise<StartedSession> => {
    clearTimeout(idle);
    const [{ makeNewSession }, sessions] = await Promise.all([loadStart(), storeOf()]);
    const made = await makeNewSession(sessions, request);
    const handle = Promise.withResolvers<AgentHandle>();
    const open = () => {
      if (!waiting.delete(open)) return;
      void (async () => {
        let agent: Composition;
        try {
          agent = await composed();
        } catch (error) {
          await made.log[Symbol.asyncDispose]();
          throw error;
        }
        return agent.service.adopt(made, request);
      })().then(handle.resolve, handle.reject);
    };
    waiting.add(open);
    // Composing blocks the thread for milliseconds: not while a client sends session after
    // session (each answered at once), but once it is quiet, or at once for a request that
    // needs the handle.
    clearTimeout(quiet);
    quiet = setTimeout(openWaiting, QUIET_MS);
    return {
      sessionId: made.log.header.id,
      settings: sessionDefaults(config, catalog),
      handle: handle.promise,
      open,
    };
  };

  const service: AgentService = {
    create: async (request) => (await composed()).service.create(request),
    start,
    adopt: async (made, request) => (await composed()).service.adopt(made, request),
    resume: async (id, request) => (await composed()).service.resume(id, request),
    fork: async (request) => (await composed()).service.fork(request),
    list: async () => (await composed()).service.list(),
    delete: async (id) => (await composed()).service.delete(id),
  };

  return {
    service,
    composed,
    prepare() {
      void storeOf().catch(() => undefined);
      clearTimeout(idle);
      // A failure is the first session request's to report.
      idle = setTimeout(() => void composed().catch(() => undefined), IDLE_COMPOSE_MS);
      idle.unref();
    },
    async [Symbol.asyncDispose]() {
      clearTimeout(idle);
      clearTimeout(quiet);
      // A session request still loading the module composes before this continuation runs.
      await composeModule?.catch(() => undefined);
      await composition?.[Symbol.asyncDispose]();
    },
  };
}
