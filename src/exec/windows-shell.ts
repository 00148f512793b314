/**
 * Commands on Windows. dsh has no sandbox there: the sandboxed way is dsh's Linux build inside
 * WSL2 (bubblewrap works in WSL2's kernel). On Windows itself commands run in Git for Windows'
 * bash when it is installed, outside any sandbox, as the user, and each one is asked about
 * (no rule covers it); without Git Bash no command can run. WSL's own `bash.exe` in System32
 * is not used: it would run the command in a Linux distribution, unsandboxed too.
 */
import { win32 } from "node:path";
import type { SandboxStatus } from "./types.ts";

/** Why there is no sandbox, as the bash tool and `dsh doctor` say it. */
export const WINDOWS_REASON = "dsh has no sandbox on Windows";
export const WINDOWS_FIX =
  "install WSL2 and run dsh's Linux build inside it (curl -fsSL " +
  "https://github.com/dsh-agent/dsh/releases/latest/download/install.sh | sh, then " +
  "apt install bubblewrap), where commands run sandboxed";

/** What a command on Windows without Git Bash is refused with. */
export function noShellMessage(): string {
  return (
    `Commands need WSL2 on Windows: ${WINDOWS_REASON}, and Git for Windows' bash ` +
    `(bash.exe) was not found either, so no command can run here. To run commands sandboxed, ` +
    `${WINDOWS_FIX}; to run them unsandboxed, each asked about, install Git for Windows.`
  );
}

/** The sandbox status on Windows: never ok; `shell` is Git Bash, when found. */
export function windowsStatus(shell: string | undefined): SandboxStatus {
  return {
    backend: "none",
    ok: false,
    reason:
      shell === undefined
        ? `${WINDOWS_REASON}, and Git for Windows' bash was not found`
        : `${WINDOWS_REASON}; commands run unsandboxed in Git Bash (${shell}), each asked about`,
    fix: WINDOWS_FIX,
    unsandboxedOnly: { shell },
  };
}

/**
 * Git for Windows' `bash.exe`: under `ProgramFiles`, `ProgramW6432`, `LOCALAPPDATA\Programs`
 * or beside the `git.exe` found on `Path` (`...\Git\cmd\git.exe` -> `...\Git\bin\bash.exe`).
 * Names of `env` are matched without regard to case, as Windows does. `exists` tells a file
 * exists (injected so that the search can be checked anywhere).
 */
export function findGitBash(
  env: Readonly<Record<string, string | undefined>>,
  exists: (path: string) => boolean,
): string | undefined {
  const get = (name: string) =>
    Object.entries(env).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  const candidates: string[] = [];
  for (const root of [get("ProgramFiles"), get("ProgramW6432")]) {
    if (root) candidates.push(win32.join(root, "Git", "bin", "bash.exe"));
  }
  const local = get("LOCALAPPDATA");
  if (local) candidates.push(win32.join(local, "Programs", "Git", "bin", "bash.exe"));
  for (const dir of (get("Path") ?? "").split(";")) {
    if (!win32.isAbsolute(dir) || !exists(win32.join(dir, "git.exe"))) continue;
    candidates.push(win32.join(dir, "..", "bin", "bash.exe"));
  }
  return candidates.find((path) => !isSystemBash(path) && exists(path));
}

/** WSL's launcher, which runs commands in a Linux distribution. */
function isSystemBash(path: string): boolean {
  return /\\windows\\(system32|sysnative)\\bash\.exe$/i.test(win32.normalize(path));
}
