/**
 * The system prompt: short and concrete. It is built once per session and kept byte-stable,
 * so the provider's prefix cache keeps hitting.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

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
  const candidates = [...(configDir ? [configDir] : []), ...projectDirs].map((d) => join(d, "AGENTS.md"));
  const found: { path: string; text: string }[] = [];
  for (const path of candidates) {
    const text = readSmallText(path);
    if (text !== undefined && text.trim() !== "") found.push({ path, text });
  }
  return found;
}

function readSmallText(path: string): string | undefined {
  try {
    const bytes = readFileSync(path);
    return bytes.subarray(0, MAX_INSTRUCTIONS_BYTES).toString("utf8");
  } catch {
    return undefined;
  }
}
