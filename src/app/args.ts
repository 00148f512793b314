/** Command-line parsing: argv to one command plus the common flags. Unknown input is a usage error. */
import { DshError } from "../errors.ts";

export type CommandName = "acp" | "chat" | "exec" | "sessions" | "doctor" | "help" | "version";

export interface Flags {
  readonly model?: string;
  readonly permission?: string;
  readonly cwd?: string;
  readonly resume?: string;
}

export interface ParsedArgs {
  readonly command: CommandName;
  readonly flags: Flags;
  /** `dsh exec` prompt words, joined with spaces; `-` means read standard input. */
  readonly prompt?: string;
}

/** A bad command line; the CLI prints the message and a hint, and exits 2. */
export class UsageError extends DshError<"usage"> {
  constructor(message: string) {
    super("usage", message);
  }
}

const VALUE_FLAGS = {
  "--model": "model",
  "--permission": "permission",
  "--cwd": "cwd",
  "--resume": "resume",
} as const;
const COMMANDS = new Set<string>(["acp", "chat", "exec", "sessions", "doctor"]);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const flags: Record<string, string> = {};
  const positional: string[] = [];
  let command: CommandName | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--help" || arg === "-h") return { command: "help", flags: {} };
    if (arg === "--version" || arg === "-V") return { command: "version", flags: {} };
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    const [name, inline] = splitFlag(arg);
    if (name in VALUE_FLAGS) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new UsageError(`${name} needs a value`);
      flags[VALUE_FLAGS[name as keyof typeof VALUE_FLAGS]] = value;
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown flag: ${arg}`);
    if (command === undefined && positional.length === 0 && COMMANDS.has(arg))
      command = arg as CommandName;
    else positional.push(arg);
  }
  const resolved = command ?? "chat";
  if (resolved === "exec") {
    if (positional.length === 0)
      throw new UsageError('dsh exec needs a prompt: dsh exec "fix the failing test"');
    return { command: resolved, flags, prompt: positional.join(" ") };
  }
  if (positional.length > 0) {
    const hint =
      command === undefined ? ` (did you mean: dsh exec "${positional.join(" ")}"?)` : "";
    throw new UsageError(`unexpected argument: ${positional[0]}${hint}`);
  }
  return { command: resolved, flags };
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  if (!arg.startsWith("--") || eq === -1) return [arg, undefined];
  return [arg.slice(0, eq), arg.slice(eq + 1)];
}

export const HELP = `dsh: a coding agent for your editor (ACP) and your terminal

Usage:
  dsh [chat]            interactive chat in the current directory
  dsh exec "PROMPT"     one-shot run: the answer on stdout, activity on stderr
                        (PROMPT "-" reads the prompt from standard input)
  dsh acp               Agent Client Protocol agent on stdin/stdout (for editors)
  dsh sessions          list saved sessions
  dsh doctor            check the setup and say how to fix each problem
  dsh --version | --help

Flags (chat and exec):
  --model ID            model id (default: the catalog's default, deepseek-flash)
  --permission PRESET   read-only | workspace-write | danger-full-access
  --cwd DIR             working directory (default: the current directory)
  --resume ID           continue a saved session

Environment:
  DSH_API_KEY           API key (falls back to DEEPSEEK_API_KEY)
  DSH_BASE_URL          OpenAI-compatible base URL (default https://api.deepseek.com)
  DSH_MODEL             default model id
  DSH_PERMISSION        default permission preset (default workspace-write)
  DSH_SANDBOX           auto | bwrap | seatbelt | none (default auto)
  DSH_HOME              state directory (default $XDG_DATA_HOME/dsh or ~/.local/share/dsh)
  DSH_CONFIG            config file (default $XDG_CONFIG_HOME/dsh/config.toml)
  DSH_LOG               log destination: stderr or a file path (default stderr)

Precedence: flags > environment > config file > defaults.
`;
