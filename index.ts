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
import { HELP, UsageError, parseArgs } from "./src/cli/args.ts";
import { exitOnTermination } from "./src/app/exit-on-signal.ts";
import { processIo } from "./src/app/process-io.ts";
import { printError } from "./src/cli/io.ts";
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
        return await (await import("./src/app/acp.ts")).runAcp(io.env, version);
      case "exec":
        exitOnTermination();
        return await (await import("./src/cli/exec.ts")).runExec(io, args, () => Bun.stdin.text());
      case "chat":
        exitOnTermination();
        return await (await import("./src/cli/chat.ts")).runChat(io, args);
      case "sessions":
        return await (await import("./src/cli/sessions.ts")).runSessions(io);
      case "doctor":
        return await (await import("./src/cli/doctor.ts")).runDoctor(io);
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
    printError(io, error instanceof DshError ? error.message : errorMessage(error));
    return 1;
  }
}

process.exit(await main(Bun.argv.slice(2)));
