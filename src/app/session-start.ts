/**
 * What `dsh acp` loads to answer `session/new` before the agent is composed: the session store
 * and the request's checks. The agent's chunk shares these modules rather than holding them.
 */
export { makeNewSession } from "../agent/new-session.ts";
export { createSessionStore } from "../session/store.ts";
