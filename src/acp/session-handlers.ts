/**
 * The session methods: new, load, resume, list, close, delete, config changes and prompt
 * (a slash command or a turn). Every check that can fail on the request alone (cwd, id) runs
 * before any agent is built.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentService } from "../agent/types.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { isSessionId } from "../session/ids.ts";
import type { Logger } from "../log.ts";
import { type AcpModel, configChange, configOptions } from "./config-options.ts";
import { checkCwd, checkCwdText, checkSameCwd } from "../session/cwd.ts";
import type { BridgeSession } from "./bridge-session.ts";
import type { ClientOptions } from "./capabilities.ts";
import type { AcpCommandDeps } from "./commands.ts";
import { turnError } from "./errors.ts";
import { mcpServerSpecs } from "./mcp-servers.ts";
import type { ForkSessionRequest } from "./fork-request.ts";
import { sessionParts } from "./lazy-parts.ts";
import type { SessionTable } from "./sessions.ts";

/**
 * Zed registers a new session only after the `session/new` response and its own follow-up
 * work, and drops updates for a session it does not know yet (zed.md §7.1): the commands of a
 * new session are sent this long after its response.
 */
export const NEW_SESSION_COMMANDS_DELAY_MS = 100;

export interface SessionHandlerDeps extends AcpCommandDeps {
  readonly service: AgentService;
  readonly models: () => readonly AcpModel[];
  readonly table: SessionTable;
  readonly clientOptions: () => ClientOptions;
  readonly logger: Logger;
  /**
   * Writes `session/update`s straight to the connection's output, behind everything written
   * before; rejects once the client is gone.
   */
  readonly writeUpdates: UpdateWriter;
}

/** Writes a session's updates to the client, in order. */
export type UpdateWriter = (
  sessionId: string,
  updates: readonly acp.SessionUpdate[],
) => Promise<void>;

/** The session methods, each taking parsed params and the connection's client context. */
export function createSessionHandlers(deps: SessionHandlerDeps) {
  const { service, table } = deps;
  const optionsOf = (session: BridgeSession) =>
    configOptions(session.handle.settings(), deps.models());

  /** Reopens a session (or takes the live one), optionally replaying its transcript first. */
  const reopen = async (
    params: {
      sessionId: string;
      cwd: string;
      mcpServers?: readonly acp.McpServer[];
      additionalDirectories?: readonly string[] | null;
    },
    client: acp.AgentContext,
    replay: boolean,
  ) => {
    const { sessionId, cwd } = params;
    checkSessionId(sessionId);
    checkCwdText(cwd);
    const mcpServers = mcpServerSpecs(params.mcpServers);
    const additionalDirectories = params.additionalDirectories ?? [];
    await table.settle(sessionId);
    return table.reserve(sessionId, async () => {
      const existing = table.get(sessionId);
      // An open session keeps the servers it runs: one process per server per session.
      if (existing !== undefined) {
        await checkReusable(existing, cwd);
        for (const dir of additionalDirectories) await existing.handle.addDirectory(dir);
      }
      const session =
        existing ??
        (await table.open(
          () => service.resume(sessionId, { cwd, mcpServers, additionalDirectories }),
          client,
        ));
      if (replay) await sendReplay(session, deps);
      // The client knows a loaded or resumed id before it asked, so this lands (zed.md §2).
      await session.advertiseCommands();
      return { configOptions: optionsOf(session) };
    });
  };

  return {
    /**
     * Answers once the session's log is made: its handle opens after the answer, and every
     * later request of the session waits for it (the table's `ready`).
     */
    async new(
      params: acp.NewSessionRequest,
      client: acp.AgentContext,
    ): Promise<acp.NewSessionResponse> {
      // The cwd is checked by `start`, before anything is made.
      const mcpServers = mcpServerSpecs(params.mcpServers);
      const additionalDirectories = params.additionalDirectories ?? [];
      const started = await service.start({ cwd: params.cwd, mcpServers, additionalDirectories });
      const answered = performance.now();
      table.openLater(started.sessionId, started, client, (session) => {
        // The first command list comes a fixed time after the answer, however long opening took.
        const waited = performance.now() - answered;
        void session.advertiseCommands(Math.max(0, NEW_SESSION_COMMANDS_DELAY_MS - waited));
      });
      return {
        sessionId: started.sessionId,
        configOptions: configOptions(started.settings, deps.models()),
      };
    },
    load: (
      params: acp.LoadSessionRequest,
      client: acp.AgentContext,
    ): Promise<acp.LoadSessionResponse> => reopen(params, client, true),
    resume: (
      params: acp.ResumeSessionRequest,
      client: acp.AgentContext,
    ): Promise<acp.ResumeSessionResponse> => reopen(params, client, false),
    fork: (params: ForkSessionRequest, client: acp.AgentContext) =>
      forkSession(deps, params, client),
    async list(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
      // Every session fits in one page, so dsh never hands out a cursor to come back with.
      if (params.cursor != null)
        throw new InvalidInputError("unknown cursor", { cursor: params.cursor });
      const sessions = (await service.list())
        .filter((s) => params.cwd == null || s.cwd === params.cwd)
        .map((s) => ({
          sessionId: s.id,
          cwd: s.cwd,
          updatedAt: s.updatedAt,
          ...(s.title === "" ? {} : { title: s.title }),
          ...(s.directories.length === 0 ? {} : { additionalDirectories: [...s.directories] }),
        }));
      return { sessions };
    },
    async close(params: acp.CloseSessionRequest): Promise<acp.CloseSessionResponse> {
      // A session still opening, or one that failed to, closes too.
      if (!table.has(params.sessionId)) table.require(params.sessionId);
      await table.close(params.sessionId);
      return {};
    },
    delete: (params: acp.DeleteSessionRequest) => deleteSession(deps, params.sessionId),
    async setConfigOption(
      params: acp.SetSessionConfigOptionRequest,
    ): Promise<acp.SetSessionConfigOptionResponse> {
      const session = await table.ready(params.sessionId);
      // Zed applies saved defaults right after session/new and registers the session only
      // then: the command list waits until that burst is over.
      session.postpone(NEW_SESSION_COMMANDS_DELAY_MS);
      const change = configChange(params, session.handle.settings(), deps.models());
      const settings = session.handle.configure(change);
      return { configOptions: configOptions(settings, deps.models()) };
    },
    /** A slash command when the prompt starts with one, else a turn; settles with its end. */
    async prompt(params: acp.PromptRequest, signal: AbortSignal): Promise<acp.PromptResponse> {
      // A `session/cancel` before the turn starts (the session still opening, the command
      // still being read) cancels this prompt too, once it runs.
      const cancelled = new AbortController();
      const stopListening = table.onCancel(params.sessionId, () => cancelled.abort());
      try {
        const session = await table.ready(params.sessionId);
        const turnSignal = AbortSignal.any([signal, cancelled.signal]);
        const { commandOf, runAcpCommand, settlementOf, userContentOf } = await sessionParts();
        const command = await commandOf(params.prompt, session.handle);
        const settlement =
          command === undefined
            ? settlementOf(await session.prompt(userContentOf(params.prompt), turnSignal))
            : await runAcpCommand(command, session, deps, turnSignal);
        if (settlement.type === "error") throw turnError(settlement.error);
        return { stopReason: settlement.stopReason };
      } finally {
        stopListening();
      }
    },
  };
}

/**
 * `session/fork`: a new session holding the source's whole history (open or saved), with its
 * own id and log; the source is unchanged. A source running a prompt is refused.
 */
async function forkSession(
  deps: SessionHandlerDeps,
  params: ForkSessionRequest,
  client: acp.AgentContext,
): Promise<{ sessionId: string; configOptions: acp.SessionConfigOption[] }> {
  const { service, table } = deps;
  checkSessionId(params.sessionId);
  await checkCwd(params.cwd);
  await table.settle(params.sessionId);
  const mcpServers = mcpServerSpecs(params.mcpServers ?? []);
  if (table.get(params.sessionId)?.busy === true) {
    throw new ConflictError(`session ${params.sessionId} is running a prompt`, {
      sessionId: params.sessionId,
    });
  }
  const history = await table.reserve(params.sessionId, async () => {
    const open = table.get(params.sessionId);
    if (open !== undefined) return [...open.handle.history()];
    await using saved = await service.resume(params.sessionId);
    return [...saved.history()];
  });
  const additionalDirectories = params.additionalDirectories ?? [];
  const session = await table.open(
    () => service.fork({ cwd: params.cwd, history, mcpServers, additionalDirectories }),
    client,
  );
  void session.advertiseCommands(NEW_SESSION_COMMANDS_DELAY_MS);
  return {
    sessionId: session.id,
    configOptions: configOptions(session.handle.settings(), deps.models()),
  };
}

/** Updates written at a time while replaying: a long log is never mapped whole. */
const REPLAY_BATCH = 256;

/**
 * Sends the session's transcript, in order, a batch at a time. The first update goes through
 * the session like any other, so it lands behind everything the connection queued before; the
 * rest follow it straight to the output, without the SDK's work per message.
 */
async function sendReplay(session: BridgeSession, deps: SessionHandlerDeps): Promise<void> {
  // The log as it is now: anything appended while the batches go out is not part of it.
  const events = [...session.handle.history()];
  const { replayStream } = await sessionParts();
  const updates = replayStream(events, deps.clientOptions());
  const first = updates.next();
  if (first.done === true) return;
  await session.send([first.value]);
  let batch: acp.SessionUpdate[] = [];
  try {
    for (const update of updates) {
      batch.push(update);
      if (batch.length < REPLAY_BATCH) continue;
      await deps.writeUpdates(session.id, batch);
      batch = [];
      // A turn of the event loop between batches: the connection reads on, and the garbage of
      // one batch is collected before it piles up (a lower peak for a long log, no slower).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await deps.writeUpdates(session.id, batch);
  } catch (error) {
    // The client is gone: the session stays open for whatever it still sends.
    deps.logger.warn("could not send a replayed transcript", { sessionId: session.id, error });
  }
}

/**
 * A cheap guard before the store's own id check: nothing that could name another path ever
 * reaches the file system, whatever the store's id format is.
 */
function checkSessionId(id: string): void {
  const hostile = id === "" || id.length > 256 || id.startsWith(".") || /[/\\\0:]/.test(id);
  if (hostile) throw new InvalidInputError("malformed session id", { sessionId: id.slice(0, 256) });
}

/**
 * `session/delete`: an open session is closed first, unless a prompt runs in it (ConflictError:
 * the client cancels first) or it is loading; then its log is removed. The id stays reserved
 * meanwhile, so no load or prompt can slip in between. A session that does not exist (or an
 * id no session can have) is deleted already: that succeeds, as the spec asks; an id that could
 * name another path is still refused.
 */
async function deleteSession(
  deps: SessionHandlerDeps,
  sessionId: string,
): Promise<acp.DeleteSessionResponse> {
  checkSessionId(sessionId);
  if (!isSessionId(sessionId)) return {};
  await deps.table.settle(sessionId);
  const live = deps.table.get(sessionId);
  if (live?.busy === true) {
    throw new ConflictError(`session ${sessionId} is running a prompt; cancel it first`, {
      sessionId,
    });
  }
  return deps.table.reserve(sessionId, async () => {
    if (deps.table.has(sessionId)) await deps.table.close(sessionId);
    try {
      await deps.service.delete(sessionId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    return {};
  });
}

/** An open session can be loaded again only when idle and for the same directory. */
async function checkReusable(session: BridgeSession, cwd: string): Promise<void> {
  if (session.busy)
    throw new ConflictError(`session ${session.id} is running a prompt`, { sessionId: session.id });
  await checkSameCwd(session.id, session.handle.cwd, cwd);
}
