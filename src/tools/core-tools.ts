/**
 * The tools dsh always offers, each built with what it needs, in one list whose order is the
 * order of the model's tool list. That order is part of every request's cached prefix: a new
 * core tool goes at the end.
 */
import * as os from "node:os";
import type { CommandRunner } from "../exec/types.ts";
import type { InteractionSeam } from "../interaction/types.ts";
import { createAskUserQuestionTool } from "./ask-user-question.ts";
import { createBashTool } from "./bash.ts";
import type { BackgroundJobs } from "./background/jobs.ts";
import { createBackgroundTools } from "./background/tools.ts";
import { createEditFileTool } from "./edit-file.ts";
import { secretPlacesOf } from "../file-safety/credential-paths.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { createGlobTool } from "./glob.ts";
import { createGrepTool } from "./grep.ts";
import { createReadFileTool } from "./read-file.ts";
import { createTodoWriteTool } from "./todo-write.ts";
import type { AnyTool } from "./types.ts";
import { type WebToolsDeps, createWebTools } from "./web-tools.ts";
import { createWriteFileTool } from "./write-file.ts";

export interface CoreToolDeps {
  /** Runs `bash`'s commands: the process's one runner. */
  readonly runner: CommandRunner;
  /** Where `ask_user_question` asks; the tool is offered only where this seam can ask. */
  readonly interaction: InteractionSeam;
  /**
   * The user's home directory, whose credential stores the file tools never open or write.
   * The composition root passes it; without it the OS account's home is used.
   */
  readonly homeDir?: string;
  /** `$XDG_CONFIG_HOME` when set: its credential stores are refused too. */
  readonly configHome?: string;
  /** `$XDG_DATA_HOME` when set: its credential stores are refused too. */
  readonly dataHome?: string;
  /**
   * dsh's state directory (`DSH_HOME`): other sessions' transcripts and the stored key, which
   * the file tools never read, list or write.
   */
  readonly stateDir?: string;
  /**
   * The secret places already built (the composition root shares them with the agent
   * service); when given, the home, XDG and state fields above are not used.
   */
  readonly secrets?: SecretPlaces;
  /**
   * Directories and files the write tools never touch under any preset, like `.git` and
   * `.dsh`: dsh's own configuration, which may lie inside a workspace (a dotfiles
   * repository). Default none.
   */
  readonly protectedDirs?: readonly string[];
  /** What the web tools need; without it neither `web_fetch` nor `web_search` is offered. */
  readonly web?: WebToolsDeps;
  /** Where background commands live; with it `bash_output` and `bash_kill` are offered. */
  readonly jobs?: BackgroundJobs;
}

/**
 * `read_file`, `write_file`, `edit_file`, `glob`, `grep`, `bash`, `ask_user_question`,
 * `todo_write`, then `web_fetch` and `web_search` (as `[web]` configures them), then
 * `bash_output` and `bash_kill` (with background commands): every core tool, in this order.
 */
export function createCoreTools(deps: CoreToolDeps): AnyTool[] {
  const secrets =
    deps.secrets ??
    secretPlacesOf({
      home: deps.homeDir ?? os.homedir(),
      configHome: deps.configHome,
      dataHome: deps.dataHome,
      stateDir: deps.stateDir,
    });
  const protectedDirs = deps.protectedDirs ?? [];
  return [
    createReadFileTool({ secrets }),
    createWriteFileTool({ secrets, protectedDirs }),
    createEditFileTool({ secrets, protectedDirs }),
    createGlobTool({ secrets }),
    createGrepTool({ secrets }),
    createBashTool({
      runner: deps.runner,
      ...(deps.jobs === undefined ? {} : { jobs: deps.jobs }),
    }),
    createAskUserQuestionTool({ interaction: deps.interaction }),
    createTodoWriteTool(),
    ...(deps.web === undefined ? [] : createWebTools(deps.web)),
    ...(deps.jobs === undefined ? [] : createBackgroundTools(deps.jobs)),
  ];
}
