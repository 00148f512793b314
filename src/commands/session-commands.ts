/**
 * `/fork` and `/add-dir`: commands that change what a session is, not what it says: a new
 * session holding this one's history, and one more directory it works in.
 */
import { resolve } from "node:path";
import { InvalidInputError } from "../errors.ts";
import { realpathOr } from "../paths.ts";
import { checkAddedDirectory } from "../session/directories.ts";
import type { SessionEvent } from "../session/events.ts";
import { visiblePromptTurns } from "../session/rewind.ts";
import type { CommandResult, SlashCommand } from "./types.ts";

const reply = (text: string): CommandResult => ({ type: "reply", text });

export const forkCommand: SlashCommand = {
  name: "fork",
  description: "A new session holding this one's history (before the last N turns, when given)",
  hint: "number of prompt turns to leave out (none when absent)",
  argument: "N",
  async run(args, session) {
    if (session.fork === undefined) return reply("/fork is not offered here");
    const history = session.handle.history();
    let kept: readonly SessionEvent[] = history;
    if (args !== "") {
      const count = Number(args);
      const turns = visiblePromptTurns(history);
      if (!Number.isInteger(count) || count < 0 || count > turns.length) {
        throw new InvalidInputError(
          `/fork takes a number of turns to leave out (0 to ${turns.length})`,
        );
      }
      const first = turns[turns.length - count]?.events[0]?.seq;
      if (first !== undefined) kept = history.filter((event) => event.seq < first);
    }
    const forked = await session.fork(kept);
    const source = session.handle.sessionId;
    return reply(
      forked.switched
        ? `Forked: this chat goes on in session ${forked.sessionId}, with the same history; the original is saved: dsh --resume ${source}`
        : `Forked into session ${forked.sessionId}, holding this session's history; this one is unchanged. Open it from the thread history (or dsh --resume ${forked.sessionId}).`,
    );
  },
};

export const addDirCommand: SlashCommand = {
  name: "add-dir",
  description: "Let the session work in one more directory (files and commands may write there)",
  hint: "directory",
  argument: "DIR",
  async run(args, session) {
    if (args === "") throw new InvalidInputError("/add-dir needs a directory");
    // Checked first: nobody is asked about a directory that cannot be added.
    const path = await checkAddedDirectory(resolve(realpathOr(session.handle.cwd), args));
    if (path === realpathOr(session.handle.cwd) || session.handle.directories().includes(path)) {
      return reply(`${path} is one of the session's directories already.`);
    }
    // It widens what commands may write, as an escalation does: asked first.
    const yes =
      session.confirm !== undefined &&
      (await session.confirm({
        title: `Add ${path} to this session?`,
        detail: `Commands and file tools may then change files in ${path} as they do in ${session.handle.cwd}, under the same preset; its AGENTS.md and skills join the session's next request.`,
        yes: "Add it",
        no: "Don't add it",
      }));
    if (!yes) return reply(`${path} was not added.`);
    const real = await session.handle.addDirectory(path);
    return reply(`Added ${real}: this session works there too (/status lists its directories).`);
  },
};
