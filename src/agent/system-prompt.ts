/**
 * The system prompt: short and concrete. It is built once per session and kept byte-stable,
 * so the provider's prefix cache keeps hitting.
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { credentialMatch, homeDirsOf } from "../tools/credential-paths.ts";

export interface SystemPromptInput {
  readonly cwd: string;
  readonly platform: string;
  readonly date: string;
  /** Contents of AGENTS.md files, outermost first, each with the path it came from. */
  readonly instructions: readonly { path: string; text: string }[];
}

export function buildSystemPrompt(input: SystemPromptInput): string {
  const parts = [
    "You are dsh, a coding agent. You work in the user's project through tools: read and search files, edit them, and run shell commands.",
    "Work step by step. Read before you edit. Keep changes minimal and focused on the request. After changing code, run the project's checks when you can.",
    "Shell commands run in a sandbox: by default they can write only inside the working directory and have no network. If a command truly needs more, call bash with escalate: true and a justification; the user decides.",
    "For work of three or more steps, keep a plan with todo_write: send the whole list each time, keep exactly one item in_progress, and mark each item completed as soon as it is done. Skip the plan for a quick question or a one-step change.",
    "When a decision only the user can make blocks you, ask with ask_user_question if you have it; otherwise decide sensibly and say what you chose.",
    "Paths may be absolute or relative to the working directory. Answer concisely; use Markdown.",
    "",
    `Working directory: ${input.cwd}`,
    `Platform: ${input.platform}`,
    `Date: ${input.date}`,
  ];
  for (const { path, text } of input.instructions) {
    parts.push("", `Instructions from ${path}:`, text.trim());
  }
  return parts.join("\n");
}

/** Upper bound on one AGENTS.md file; larger files are cut so one file cannot flood the prompt. */
const MAX_INSTRUCTIONS_BYTES = 64 * 1024;

/**
 * AGENTS.md files from the user's config dir and from the repository root down to `cwd`
 * (the root is the nearest ancestor holding `.git`; without one, only `cwd` itself).
 */
export function findInstructions(
  cwd: string,
  configDir: string | undefined,
  homeDir: string,
): { path: string; text: string }[] {
  const dirs: string[] = [];
  let dir = cwd;
  let root: string | undefined;
  for (;;) {
    dirs.push(dir);
    if (existsSync(join(dir, ".git"))) {
      root = dir;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const projectDirs = root === undefined ? [cwd] : dirs.reverse();
  const candidates = [...(configDir ? [configDir] : []), ...projectDirs].map((d) =>
    join(d, "AGENTS.md"),
  );
  const found: { path: string; text: string }[] = [];
  const homes = homeDirsOf(homeDir);
  for (const path of candidates) {
    const text = readSmallText(path, homes);
    if (text !== undefined && text.trim() !== "") found.push({ path, text });
  }
  return found;
}

/**
 * The start of a regular file, or undefined. The file goes into every model request, so it is
 * checked like a tool read: a link into a credential store is refused, and a FIFO or device
 * (which could block the process or never end) is never read.
 */
function readSmallText(path: string, homes: readonly string[]): string | undefined {
  let fd: number | undefined;
  try {
    if (credentialMatch(realpathSync(path), homes) !== undefined) return undefined;
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_INSTRUCTIONS_BYTES);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, length).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
