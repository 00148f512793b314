/** The file tools dsh always offers, in a stable order (the order of the model's tool list). */
import * as os from "node:os";
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
  /**
   * Directories the write tools never touch under any preset, like `.git` and `.dsh`: dsh's
   * own configuration, which may lie inside a workspace (a dotfiles repository). Default none.
   */
  readonly protectedDirs?: readonly string[];
}

/** `read_file`, `write_file`, `edit_file`, `glob`, `grep`. */
export function createFileTools(deps: FileToolDeps = {}): AnyTool[] {
  const homeDir = deps.homeDir ?? os.homedir();
  const protectedDirs = deps.protectedDirs ?? [];
  return [
    createReadFileTool({ homeDir }),
    createWriteFileTool({ homeDir, protectedDirs }),
    createEditFileTool({ homeDir, protectedDirs }),
    createGlobTool({ homeDir }),
    createGrepTool({ homeDir }),
  ];
}
