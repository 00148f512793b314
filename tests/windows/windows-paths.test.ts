/**
 * What dsh knows of Windows paths, checked with Node's win32 path rules anywhere: where Git
 * Bash is found (never WSL's launcher), which environment a command keeps (`Path`,
 * `SystemRoot`, ... whatever their case), which credential stores Windows keeps under
 * `%APPDATA%` and `%LOCALAPPDATA%`, and the file tools' refusal of them under any case and
 * either separator.
 */
import { describe, expect, test } from "bun:test";
import { win32 } from "node:path";
import { scrubEnv } from "../../src/exec/env.ts";
import { findGitBash, windowsStatus } from "../../src/exec/windows-shell.ts";
import { credentialStores } from "../../src/permission/credentials.ts";
import { secretMatch, secretPlacesOf } from "../../src/file-safety/credential-paths.ts";

const files = (...paths: string[]) => {
  const set = new Set(paths.map((p) => win32.normalize(p).toLowerCase()));
  return (path: string) => set.has(win32.normalize(path).toLowerCase());
};

describe("Git Bash", () => {
  test("is found under Program Files, or beside git.exe on Path, whatever the variables' case", () => {
    const exists = files("C:\\Program Files\\Git\\bin\\bash.exe");
    expect(findGitBash({ ProgramFiles: "C:\\Program Files" }, exists)).toBe(
      "C:\\Program Files\\Git\\bin\\bash.exe",
    );
    const beside = files("D:\\tools\\Git\\cmd\\git.exe", "D:\\tools\\Git\\bin\\bash.exe");
    expect(findGitBash({ PATH: "C:\\Windows\\System32;D:\\tools\\Git\\cmd" }, beside)).toBe(
      "D:\\tools\\Git\\bin\\bash.exe",
    );
    expect(
      findGitBash(
        { localappdata: "C:\\Users\\u\\AppData\\Local" },
        files("C:\\Users\\u\\AppData\\Local\\Programs\\Git\\bin\\bash.exe"),
      ),
    ).toBe("C:\\Users\\u\\AppData\\Local\\Programs\\Git\\bin\\bash.exe");
  });

  test("never WSL's bash.exe in System32, and nothing when none is installed", () => {
    const onlyWsl = files("C:\\Windows\\System32\\bash.exe");
    expect(findGitBash({ Path: "C:\\Windows\\System32", ProgramFiles: "C:\\x" }, onlyWsl)).toBe(
      undefined,
    );
    expect(windowsStatus(undefined)).toMatchObject({
      backend: "none",
      ok: false,
      unsandboxedOnly: { shell: undefined },
    });
    expect(windowsStatus("C:\\Git\\bin\\bash.exe").fix).toContain("WSL2");
  });
});

describe("a command's environment on Windows", () => {
  test("keeps Path, SystemRoot and the rest Windows needs, whatever their case; drops secrets", () => {
    const parent = {
      Path: "C:\\Windows\\System32",
      SystemRoot: "C:\\Windows",
      COMSPEC: "C:\\Windows\\System32\\cmd.exe",
      windir: "C:\\Windows",
      USERPROFILE: "C:\\Users\\u",
      APPDATA: "C:\\Users\\u\\AppData\\Roaming",
      GITHUB_TOKEN: "ghp_x",
      Api_Key: "x",
      SESSIONNAME: "Console",
    };
    const { env, removed } = scrubEnv(parent, {
      backend: "none",
      home: "C:\\Users\\u",
      cwd: "C:\\p",
      windows: true,
    });
    expect(Object.keys(env).sort()).toEqual(
      [
        "APPDATA",
        "COMSPEC",
        "DSH_SANDBOX",
        "GIT_PAGER",
        "HOME",
        "PAGER",
        "PWD",
        "Path",
        "SystemRoot",
        "TERM",
        "USERPROFILE",
        "windir",
      ].sort(),
    );
    expect(removed).toEqual(["Api_Key", "GITHUB_TOKEN", "SESSIONNAME"]);
    // Elsewhere names are matched as the OS does, by case.
    expect(
      Object.keys(scrubEnv(parent, { backend: "none", home: "/h", cwd: "/p" }).env),
    ).not.toContain("Path");
  });
});

describe("credential stores on Windows", () => {
  const scope = {
    home: "C:\\Users\\u",
    appData: "C:\\Users\\u\\AppData\\Roaming",
    localAppData: "C:\\Users\\u\\AppData\\Local",
  };

  test("the list knows gh, VS Code, Zed, PowerShell's history and the rest under AppData", () => {
    const paths = credentialStores(scope, win32).map((store) => store.path);
    for (const path of [
      "C:\\Users\\u\\AppData\\Roaming\\GitHub CLI",
      "C:\\Users\\u\\AppData\\Roaming\\Code\\User\\settings.json",
      "C:\\Users\\u\\AppData\\Roaming\\Zed\\settings.json",
      "C:\\Users\\u\\AppData\\Roaming\\Microsoft\\Windows\\PowerShell\\PSReadLine\\ConsoleHost_history.txt",
      "C:\\Users\\u\\AppData\\Local\\github-copilot",
      "C:\\Users\\u\\.ssh",
      "C:\\Users\\u\\.git-credentials",
    ]) {
      expect({ path, listed: paths.includes(path) }).toEqual({ path, listed: true });
    }
  });

  test("the file tools refuse them in any case and with either separator", () => {
    const places = secretPlacesOf(scope, { paths: win32, folds: true });
    for (const path of [
      "C:\\Users\\u\\.ssh\\id_ed25519",
      "c:/users/U/.SSH/id_ed25519",
      "C:\\Users\\u\\AppData\\Roaming\\github cli\\hosts.yml",
      "C:/Users/u/AppData/Roaming/Microsoft/Windows/PowerShell/PSReadLine/ConsoleHost_history.txt",
      "C:\\Users\\u\\AppData\\Roaming\\Code\\User\\..\\User\\SETTINGS.JSON",
    ]) {
      expect({ path, refused: secretMatch(path, places) !== undefined }).toEqual({
        path,
        refused: true,
      });
    }
    for (const path of ["C:\\Users\\u\\project\\settings.json", "D:\\Users\\u\\.ssh\\x"]) {
      expect({ path, refused: secretMatch(path, places) !== undefined }).toEqual({
        path,
        refused: false,
      });
    }
  });
});
