#!/usr/bin/env bun
/** dsh: argv to one command. Each command composes what it needs and returns an exit code. */
import { version } from "./package.json";
import { runAcp } from "./src/app/acp.ts";
import { ConfigError } from "./src/app/config.ts";
import { HELP, UsageError, parseArgs } from "./src/cli/args.ts";
import { runChat } from "./src/cli/chat.ts";
import { runDoctor } from "./src/cli/doctor.ts";
import { runExec } from "./src/cli/exec.ts";
import { printError, processIo } from "./src/cli/io.ts";
import { runSessions } from "./src/cli/sessions.ts";
import { DshError, errorMessage } from "./src/errors.ts";

async function main(argv: readonly string[]): Promise<number> {
  const io = processIo();
  try {
    const args = parseArgs(argv);
    switch (args.command) {
      case "version":
        io.stdout.write(`dsh ${version}\n`);
        return 0;
      case "help":
        io.stdout.write(HELP);
        return 0;
      case "acp":
        return await runAcp(io.env, version);
      case "exec":
        return await runExec(io, args, () => Bun.stdin.text());
      case "chat":
        return await runChat(io, args);
      case "sessions":
        return await runSessions(io);
      case "doctor":
        return await runDoctor(io);
      default: {
        const unhandled: never = args.command;
        throw new UsageError(`unknown command ${String(unhandled)}`);
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      printError(io, `${error.message}\nRun 'dsh --help' for usage.`);
      return 2;
    }
    printError(io, error instanceof DshError || error instanceof ConfigError ? error.message : errorMessage(error));
    return 1;
  }
}

process.exit(await main(Bun.argv.slice(2)));
