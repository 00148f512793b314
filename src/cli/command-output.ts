/**
 * A running command's output as the terminal shows it: lines appear as they come, up to a
 * bound; past it, lines are counted and only the last few kept, to be shown with one line
 * saying how many were hidden when the command ends.
 */
import { terminalText } from "../render/terminal-text.ts";

/** Lines shown live before the rest is held back. */
const LIVE_LINES = 20;
/** Lines of the end shown when some were hidden. */
const TAIL_LINES = 6;

export interface CommandOutputView {
  /** Adds live output; returns the whole lines to print now (without decoration). */
  push(chunk: string): string[];
  /** Ends the output: the hidden count line and the kept tail, then any unfinished line. */
  end(): string[];
  /** Whether any live output arrived. */
  readonly seen: boolean;
}

export function createCommandOutputView(): CommandOutputView {
  let partial = "";
  let shown = 0;
  let hidden = 0;
  let seen = false;
  const tail: string[] = [];
  const take = (line: string): string[] => {
    if (shown < LIVE_LINES) {
      shown += 1;
      return [line];
    }
    hidden += 1;
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    return [];
  };
  return {
    get seen() {
      return seen;
    },
    push(chunk) {
      if (chunk === "") return [];
      seen = true;
      const lines = (partial + terminalText(chunk)).split("\n");
      partial = lines.pop() ?? "";
      return lines.flatMap(take);
    },
    end() {
      const last = partial === "" ? [] : take(partial);
      partial = "";
      if (hidden === 0) return last;
      const kept = tail.length;
      const notice = `… ${hidden - kept} more line${hidden - kept === 1 ? "" : "s"}`;
      return hidden > kept ? [notice, ...tail] : [...tail];
    },
  };
}

/** The last lines of a finished command's output, when none was seen live. */
export function outputTail(output: string): string[] {
  const lines = terminalText(output).replace(/\n+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return [];
  if (lines.length <= TAIL_LINES) return lines;
  const more = lines.length - TAIL_LINES;
  return [`… ${more} more line${more === 1 ? "" : "s"}`, ...lines.slice(-TAIL_LINES)];
}
