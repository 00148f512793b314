/**
 * The bridge's parts a session needs only once its handle is open: the event pump and its
 * mapping, slash commands, prompt content, replay. `initialize` and a new session's answer are
 * served without evaluating them; `sessionParts` loads them at the first need.
 */
export { openBridgeSession } from "./bridge-session.ts";
export { commandOf, runAcpCommand } from "./commands.ts";
export { userContentOf } from "./prompt-content.ts";
export { replayStream } from "./replay.ts";
export { settlementOf } from "./stop-reason.ts";
