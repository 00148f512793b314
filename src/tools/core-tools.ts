/** The file tools dsh always offers, in a stable order (the order of the model's tool list). */
import * as os from "node:os";
import { secretPlacesOf } from "./file-safety/credential-paths.ts";
import type { SecretPlaces } from "./file-safety/credential-paths.ts";
import { createEditFileTool } from "./edit-file.ts";
import { createGlobTool } from "./glob.ts";
import { createGrepTool } from "./grep.ts";
import { createReadFileTool } from "./read-file.ts";
import type { AnyTool } from "./types.ts";
import { createWriteFileTool } from "./write-file.ts";

export interface FileToolDeps {
  /**
   * The user's home directory, whose credential stores the tools never open or write. The
   * composition root passes it; without it the OS account's home is used.
   */
  readonly homeDir?: string;
  /** `$XDG_CONFIG_HOME` when set: its credential stores are refused too. */
  readonly configHome?: string;
  /** `$XDG_DATA_HOME` when set: its credential stores are refused too. */
  readonly dataHome?: string;
  /**
   * dsh's state directory (`DSH_HOME`): other sessions' transcripts and the stored key, which
   * the tools never read, list or write.
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
}

/** `read_file`, `write_file`, `edit_file`, `glob`, `grep`. */
export function createFileTools(deps: FileToolDeps = {}): AnyTool[] {
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
  ];
}
