/**
 * What the chat says once at start, under its banner, when the setup is risky on day one: a
 * session in the home directory or at `/` (everything under it is the workspace), or no
 * working sandbox (every command would ask to run unsandboxed).
 */
import { realpathSync } from "node:fs";
import { presetOf } from "../permission/knobs.ts";
import type { TerminalSession } from "./types.ts";

/** The warnings for `session`, each one line; none for a project directory with a sandbox. */
export async function startupWarnings(
  session: Pick<TerminalSession, "handle" | "sandbox">,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string[]> {
  const warnings: string[] = [];
  const cwd = session.handle.cwd;
  const home = env.HOME === undefined || env.HOME === "" ? undefined : real(env.HOME);
  if (cwd === "/" || cwd === home) {
    const where = cwd === "/" ? "the root directory" : "your home directory";
    warnings.push(
      `dsh is running in ${where}: everything under it is the workspace the model may read and (with workspace-write) change; start dsh in a project's directory instead`,
    );
  }
  if (presetOf(session.handle.settings().knobs) !== "danger-full-access") {
    const status = await session.sandbox();
    if (!status.ok) {
      const fix = status.fix === undefined ? "" : ` (fix: ${status.fix})`;
      // Where no shell exists either (Windows without Git Bash), no command runs at all.
      const then =
        status.unsandboxedOnly !== undefined && status.unsandboxedOnly.shell === undefined
          ? "no command can run"
          : "every command asks before it runs unsandboxed";
      warnings.push(
        `no sandbox: ${status.reason ?? `the ${status.backend} backend does not work`}${fix}; ${then}`,
      );
    }
  }
  return warnings;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
