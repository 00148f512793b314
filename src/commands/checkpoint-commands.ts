/**
 * `/undo`, `/rewind N` and `/diff`: the session's checkpoints put to use. Files a turn changed
 * go back (by the file tools or by commands); a file changed since outside dsh is asked about
 * before it is overwritten. `/rewind` also takes the conversation back (a `rewind` event).
 */
import { relative } from "node:path";
import { pathBytes, shownPath } from "../checkpoints/path-bytes.ts";
import type { RestorePlan, RootReport } from "../checkpoints/session-checkpoints.ts";
import { InvalidInputError } from "../errors.ts";
import { realpathOr } from "../paths.ts";
import { promptTitle } from "../session/folds.ts";
import { visiblePromptTurns } from "../session/rewind.ts";
import type { CommandResult, CommandSession, SlashCommand } from "./types.ts";

const reply = (text: string): CommandResult => ({ type: "reply", text });

export const undoCommand: SlashCommand = {
  name: "undo",
  description: "Restore the files the last turn changed (by its edits and its commands)",
  async run(_args, session) {
    const checkpoints = session.handle.checkpoints;
    if (checkpoints === undefined) return reply("this session keeps no checkpoints");
    if (checkpoints.unavailable !== undefined) return reply(checkpoints.unavailable);
    const result = await checkpoints.undoPlan();
    if (result.type === "none") return reply(result.reason);
    const overwrite = await askAboutConflicts(result.plan, session, "/undo");
    const reports = await checkpoints.apply(result.plan, overwrite);
    return reply(described("Undid the last turn that changed files.", reports, session));
  },
};

export const rewindCommand: SlashCommand = {
  name: "rewind",
  description: "Go back N prompt turns: their file changes and the conversation",
  hint: "number of prompt turns (1 when absent)",
  argument: "N",
  async run(args, session) {
    const count = args === "" ? 1 : Number(args);
    const turns = visiblePromptTurns(session.handle.history());
    if (!Number.isInteger(count) || count < 1) {
      throw new InvalidInputError(`/rewind takes a number of turns (1 to ${turns.length})`);
    }
    if (count > turns.length) {
      throw new InvalidInputError(
        turns.length === 0
          ? "/rewind: this session has no prompt turn to go back to"
          : `/rewind ${count}: this session shows ${turns.length} prompt turn(s)`,
      );
    }
    const rewound = turns.slice(turns.length - count);
    const target = rewound[0];
    if (target === undefined) throw new InvalidInputError("/rewind: no turn to go back to");
    const checkpoints = session.handle.checkpoints;
    let files: string;
    if (checkpoints === undefined || checkpoints.unavailable !== undefined) {
      files = `Files were left as they are: ${checkpoints?.unavailable ?? "this session keeps no checkpoints"}.`;
    } else {
      const result = await checkpoints.rewindPlan(rewound.map((turn) => turn.turnId));
      if (result.type === "none") {
        files = `Files were left as they are: ${result.reason}.`;
      } else {
        const overwrite = await askAboutConflicts(result.plan, session, `/rewind ${count}`);
        files = described("", await checkpoints.apply(result.plan, overwrite), session);
      }
    }
    session.handle.rewind(target.turnId);
    await session.handle.idle();
    const title = promptTitle(target.content) ?? "(no text)";
    return reply(
      [
        `Rewound ${count} prompt turn(s): the conversation continues from before "${title}".`,
        files.trim(),
      ]
        .filter((line) => line !== "")
        .join("\n"),
    );
  },
};

export const diffCommand: SlashCommand = {
  name: "diff",
  description: "What this session changed in the workspace (or in its last N turns)",
  hint: "number of turns (the whole session when absent)",
  argument: "N",
  async run(args, session) {
    const turns = args === "" ? undefined : Number(args);
    if (turns !== undefined && (!Number.isInteger(turns) || turns < 1)) {
      throw new InvalidInputError("/diff takes a number of turns (1 for the last one)");
    }
    const checkpoints = session.handle.checkpoints;
    if (checkpoints === undefined) return reply("this session keeps no checkpoints");
    if (checkpoints.unavailable !== undefined) return reply(checkpoints.unavailable);
    const text = await checkpoints.diff(turns);
    const since = turns === undefined ? "since the session began" : `in the last ${turns} turn(s)`;
    if (text === "") return reply(`No changes ${since}.`);
    return reply(`Changes ${since}:\n\n\`\`\`diff\n${text.trimEnd()}\n\`\`\``);
  },
};

/** Whether files changed since outside dsh are overwritten: asked when there are any. */
async function askAboutConflicts(
  plan: RestorePlan,
  session: CommandSession,
  command: string,
): Promise<boolean> {
  const conflicts = plan.roots.flatMap((root) =>
    root.conflicts.map((path) => shown(root.root, path, session)),
  );
  if (conflicts.length === 0 || session.confirm === undefined) return false;
  return session.confirm({
    title: `${command}: ${conflicts.length} file(s) changed since, outside dsh`,
    detail: [
      "These files were changed after the turn, outside dsh:",
      ...conflicts.map((path) => `  ${path}`),
      "Overwrite them too, or keep them as they are (the other files are restored either way)?",
    ].join("\n"),
    yes: "Overwrite them too",
    no: "Keep my changes",
  });
}

/** The files a restore touched, one per line, each with what happened to it. */
function described(head: string, reports: readonly RootReport[], session: CommandSession): string {
  const lines = head === "" ? [] : [head];
  for (const report of reports) {
    const name = (path: string) => shown(report.root, path, session);
    for (const path of report.restored) lines.push(`  restored   ${name(path)}`);
    for (const path of report.recreated) lines.push(`  re-created ${name(path)}`);
    for (const path of report.removed) lines.push(`  removed    ${name(path)}`);
    for (const path of report.kept) lines.push(`  kept (changed outside dsh) ${name(path)}`);
    for (const path of report.unreachable) {
      lines.push(`  left as is (a link now stands on its way) ${name(path)}`);
    }
  }
  if (lines.length === (head === "" ? 0 : 1)) lines.push("No file needed restoring.");
  return lines.join("\n");
}

/**
 * A path relative to the session's cwd when it lies there, else absolute; quoted with escapes
 * when its name is not plain UTF-8 (`"bad\xff.txt"`, `"two\nlines"`).
 */
function shown(root: string, path: string, session: CommandSession): string {
  const rel = relative(realpathOr(session.handle.cwd), root);
  const base = rel === "" ? "" : rel.startsWith("..") ? `${root}/` : `${rel}/`;
  return shownPath(Buffer.concat([Buffer.from(base, "utf8"), pathBytes(path)]));
}
