/** Command-line parsing: argv to one command plus its flags. Unknown input is a usage error (exit 2). */
import { DshError } from "../errors.ts";
import { SANDBOX } from "../settings/table.ts";

export type CommandName =
  | "acp"
  | "chat"
  | "exec"
  | "sessions"
  | "doctor"
  | "login"
  | "logout"
  | "rules"
  | "help"
  | "version";

export interface Flags {
  readonly model?: string;
  readonly permission?: string;
  readonly cwd?: string;
  readonly resume?: string;
  /** `-c` / `--continue`: the newest session of the directory. */
  readonly continue?: boolean;
  /** `dsh exec --json`. */
  readonly json?: boolean;
  /** `dsh exec -o FILE`. */
  readonly outputLastMessage?: string;
  /** `dsh sessions --all`. */
  readonly all?: boolean;
  /** `--add-dir DIR`, repeatable: more directories the session works in. */
  readonly addDirs?: readonly string[];
}

export interface ParsedArgs {
  readonly command: CommandName;
  readonly flags: Flags;
  /**
   * The prompt words, joined with spaces: `dsh exec`'s prompt (`-` means read standard input),
   * or the first message of `dsh chat`.
   */
  readonly prompt?: string;
  /** `dsh sessions rm ID`: the session to delete. */
  readonly remove?: string;
  /** `dsh acp --login`: run the login flow (editors' terminal authentication) instead. */
  readonly login?: boolean;
  /** `dsh rules rm N`: the rule to remove. */
  readonly removeRule?: number;
}

/** A bad command line; the CLI prints the message and a hint, and exits 2. */
export class UsageError extends DshError<"usage"> {
  constructor(message: string) {
    super("usage", message);
  }
}

const VALUE_FLAGS = {
  "--model": "model",
  "-m": "model",
  "--permission": "permission",
  "--cwd": "cwd",
  "-C": "cwd",
  "--resume": "resume",
  "--output-last-message": "outputLastMessage",
  "-o": "outputLastMessage",
} as const;
const SWITCHES = {
  "--continue": "continue",
  "-c": "continue",
  "--json": "json",
  "--all": "all",
} as const;
/** Which command takes which flags, beyond the common ones. */
const ONLY_FOR: Record<string, readonly CommandName[]> = {
  json: ["exec"],
  outputLastMessage: ["exec"],
  all: ["sessions"],
};
const SESSION_FLAGS = ["model", "permission", "cwd", "resume", "continue"];
const COMMANDS = new Set<string>([
  "acp",
  "chat",
  "exec",
  "sessions",
  "doctor",
  "login",
  "logout",
  "rules",
  "help",
]);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const flags: Record<string, string | boolean | string[]> = {};
  const positional: string[] = [];
  let command: CommandName | undefined;
  let login = false;
  const addDirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--help" || arg === "-h") return { command: "help", flags: {} };
    if (arg === "--version" || arg === "-V") return { command: "version", flags: {} };
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    const [name, inline] = splitFlag(arg);
    if (name === "--add-dir") {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new UsageError(`${name} needs a value`);
      addDirs.push(value);
      continue;
    }
    if (name in VALUE_FLAGS) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new UsageError(`${name} needs a value`);
      flags[VALUE_FLAGS[name as keyof typeof VALUE_FLAGS]] = value;
      continue;
    }
    if (name in SWITCHES) {
      if (inline !== undefined) throw new UsageError(`${name} takes no value`);
      flags[SWITCHES[name as keyof typeof SWITCHES]] = true;
      continue;
    }
    if (arg === "--login" && command === "acp") {
      login = true;
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown flag: ${arg}`);
    if (command === undefined && positional.length === 0 && COMMANDS.has(arg))
      command = arg as CommandName;
    else positional.push(arg);
  }
  const resolved = command ?? "chat";
  if (addDirs.length > 0) {
    if (resolved !== "chat" && resolved !== "exec")
      throw new UsageError("--add-dir is only for dsh chat and dsh exec");
    flags.addDirs = addDirs;
  }
  checkFlags(resolved, flags);
  if (resolved === "help") return { command: resolved, flags: {} };
  // No words: the prompt comes from piped standard input (`echo PROMPT | dsh exec`).
  if (resolved === "exec")
    return positional.length === 0
      ? { command: resolved, flags }
      : { command: resolved, flags, prompt: positional.join(" ") };
  if (resolved === "chat" && positional.length > 0)
    return { command: resolved, flags, prompt: positional.join(" ") };
  if (resolved === "sessions" && positional[0] === "rm") {
    const [, id, extra] = positional;
    if (id === undefined || id === "") throw new UsageError("dsh sessions rm needs a session id");
    if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`);
    return { command: resolved, flags, remove: id };
  }
  if (resolved === "acp" && login) return { command: resolved, flags, login };
  if (resolved === "rules" && positional.length > 0) {
    const [verb, n, ...extra] = positional;
    const number = Number(n);
    if (verb !== "rm" || !Number.isInteger(number) || number < 1 || extra.length > 0) {
      throw new UsageError("usage: dsh rules (lists them), dsh rules rm N (removes rule N)");
    }
    return { command: resolved, flags, removeRule: number };
  }
  if (positional.length > 0) throw new UsageError(`unexpected argument: ${positional[0]}`);
  return { command: resolved, flags };
}

/**
 * Flags checked up front, so a misplaced one is a usage error before anything starts. Values
 * that need the settings table (a preset id) are checked where the session is composed.
 */
function checkFlags(
  command: CommandName,
  flags: Record<string, string | boolean | string[]>,
): void {
  for (const [flag, commands] of Object.entries(ONLY_FOR)) {
    if (flags[flag] !== undefined && !commands.includes(command))
      throw new UsageError(`${flagName(flag)} is only for dsh ${commands.join(", dsh ")}`);
  }
  if (command !== "chat" && command !== "exec") {
    const misplaced = SESSION_FLAGS.find((flag) => flags[flag] !== undefined);
    if (misplaced !== undefined)
      throw new UsageError(`${flagName(misplaced)} is only for dsh chat and dsh exec`);
  }
  if (flags.resume !== undefined && flags.continue !== undefined)
    throw new UsageError("--resume and --continue both name a session: give one");
}

function flagName(key: string): string {
  const entry = [...Object.entries(VALUE_FLAGS), ...Object.entries(SWITCHES)].find(
    ([name, value]) => value === key && name.startsWith("--"),
  );
  return entry?.[0] ?? key;
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  if (!arg.startsWith("--") || eq === -1) return [arg, undefined];
  return [arg.slice(0, eq), arg.slice(eq + 1)];
}

export const HELP = `dsh: a coding agent for your editor (ACP) and your terminal

Usage:
  dsh [chat] ["PROMPT"]   interactive chat in the current directory (PROMPT: the first message)
  dsh exec "PROMPT"       one-shot run: the answer on stdout, activity on stderr
                          (no PROMPT, or "-": the prompt is read from standard input;
                          piped input is appended to a PROMPT given as words)
  dsh acp                 Agent Client Protocol agent on stdin/stdout (for editors)
                          (--login: the login flow, for editors' terminal sign-in)
  dsh sessions [--all]    saved sessions of this directory (--all: of every directory)
  dsh sessions rm ID      delete a saved session
  dsh login               store an API key (hidden input, checked against the endpoint)
  dsh logout              remove the stored API key
  dsh rules               list the saved "always allow" rules; dsh rules rm N removes one
  dsh doctor              check the setup and say how to fix each problem
  dsh help | --help | --version

Flags (chat and exec):
  -m, --model ID          model id (default: the catalog's default, deepseek-flash)
  --permission PRESET     read-only | workspace-write | danger-full-access
  -C, --cwd DIR           working directory (default: the current directory)
  --add-dir DIR           one more directory the session works in (repeatable)
  --resume ID             continue a saved session
  -c, --continue          continue the newest session of the directory

Flags (exec):
  --json                  one JSON event per line on stdout, nothing else
  -o, --output-last-message FILE
                          also write the last message to FILE

Chat keys: Enter sends (during a turn it queues the message); Alt-Enter, or a line ending in
\\, adds a line; a paste is one message; Up/Down recall earlier messages; Tab completes
commands and paths; Esc or Ctrl-C cancels a running turn; Ctrl-C clears the line, or (twice at
an empty prompt) exits; Ctrl-D exits. @path attaches a file. /help lists the slash commands.

Environment:
  DSH_API_KEY           API key (falls back to DEEPSEEK_API_KEY, then the key dsh login stored)
  DSH_BASE_URL          OpenAI-compatible base URL (default https://api.deepseek.com)
  DSH_MODEL             default model id
  DSH_PERMISSION        default permission preset (default workspace-write)
  DSH_SANDBOX           ${SANDBOX.values.join(" | ")} (default ${SANDBOX.default})
  DSH_HOME              state directory (default $XDG_DATA_HOME/dsh or ~/.local/share/dsh)
  DSH_CONFIG            config file (default $XDG_CONFIG_HOME/dsh/config.toml)
  DSH_LOG               log destination: stderr or a file path (default stderr)
  DSH_LOG_LEVEL         debug | info | warn | error (default warn on stderr, info in a file)
  DSH_STREAM_TIMEOUT    seconds to wait on a silent model endpoint before a step fails (default 120)
  NO_COLOR              plain output, no styling

Precedence: flags > environment > config file > defaults.
Exit codes: 0 done, 1 failed, 2 bad command line, 130 cancelled.
`;
