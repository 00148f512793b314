#!/usr/bin/env -S bun --no-env-file --config=/dev/null
/**
 * dsh: argv to one command. Each command composes what it needs and returns an exit code.
 *
 * Commands are loaded on demand: each evaluates only its own module graph, so `dsh acp` never
 * pays for the chat's readline and `--version` pays for nothing. The specifiers are string
 * literals, so `bun build --compile` still bundles every command into the binary.
 *
 * The shebang (used by `bunx dsh` and `./index.ts`) keeps Bun from reading the project's `.env`
 * and `bunfig.toml`: dsh runs inside projects it does not trust.
 */
import { version } from "./package.json";
import { HELP, UsageError, parseArgs } from "./src/app/args.ts";
import { exitOnTermination } from "./src/app/exit-on-signal.ts";
import { type ProcessIo, processIo } from "./src/app/process-io.ts";
import { DshError, errorMessage } from "./src/errors.ts";
import { terminalText } from "./src/render/terminal-text.ts";

async function main(io: ProcessIo, argv: readonly string[]): Promise<number> {
  // Not a user command: dsh runs itself so inside a command's sandbox (see the module).
  if (argv[0] === "__net-bridge") {
    return await (await import("./src/network/bridge.ts")).runBridge(argv.slice(1), io.env);
  }
  // Not a user command either: the process that ends what dsh started when dsh ends (macOS).
  if (argv[0] === "__watchdog") {
    return await (await import("./src/exec/watchdog-main.ts")).runWatchdog();
  }
  try {
    const args = parseArgs(argv);
    switch (args.command) {
      case "version":
        io.stdout.write((await import("./src/app/version.ts")).versionText());
        return 0;
      case "help":
        io.stdout.write(HELP);
        return 0;
      case "acp":
        if (args.login) return await (await import("./src/app/login.ts")).runLogin(io);
        return await (await import("./src/app/acp.ts")).runAcp(io.env, version);
      case "exec":
        exitOnTermination();
        return await (await import("./src/app/exec.ts")).runExecCommand(io, args);
      case "chat":
        exitOnTermination();
        return await (await import("./src/app/chat.ts")).runChatCommand(io, args);
      case "sessions":
        return await (await import("./src/app/sessions.ts")).runSessionsCommand(io, args);
      case "login":
        return await (await import("./src/app/login.ts")).runLogin(io);
      case "logout":
        return (await import("./src/app/login.ts")).runLogout(io);
      case "rules":
        return (await import("./src/app/rules.ts")).runRules(io, args.removeRule);
      case "doctor":
        return await (await import("./src/app/doctor.ts")).runDoctor(io);
      default: {
        const unhandled: never = args.command;
        throw new UsageError(`unknown command ${String(unhandled)}`);
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`dsh: ${terminalText(error.message)}\nRun 'dsh --help' for usage.\n`);
      return 2;
    }
    const message = error instanceof DshError ? error.message : errorMessage(error);
    io.stderr.write(`dsh: ${terminalText(message)}\n`);
    return 1;
  }
}

const io = processIo();
const code = await main(io, Bun.argv.slice(2));
// Everything the command wrote reaches its reader before the process ends.
await io.flush();
process.exit(code);
