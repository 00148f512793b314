/**
 * What bash itself runs for a command line: every builtin is disabled and PATH holds nothing,
 * so each simple command bash would run reaches `command_not_found_handle`, which writes its
 * words (after every expansion bash makes) to a file of its own and exits with a chosen status.
 * The line runs in an empty directory of its own, so a redirection to a file shows as a file.
 * A command named by a path (a name holding `/`) is run without a PATH lookup, so it never
 * reaches the handler: `tracesAll` tells whether every command of a reading can be seen.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface BashRun {
  /** Each simple command bash ran, as its words, sorted (pipeline parts run at once). */
  readonly commands: string[][];
  /** Files the line created in its directory. */
  readonly created: string[];
}

export interface BashTracer extends Disposable {
  /** Runs `bash -c -- TEXT` where every command exits with `status`. */
  run(text: string, status: 0 | 1): Promise<BashRun>;
  /** Whether `bash -n` accepts the text. */
  parses(text: string): Promise<boolean>;
}

export const BASH = Bun.which("bash", { PATH: "/bin:/usr/bin" });
const ENV = Bun.which("env", { PATH: "/usr/bin:/bin" });
const MKTEMP = Bun.which("mktemp", { PATH: "/usr/bin:/bin" });
/** Whether this machine has what the tracer needs. */
export const TRACEABLE = BASH !== null && ENV !== null && MKTEMP !== null;

export function createBashTracer(): BashTracer {
  if (BASH === null || ENV === null || MKTEMP === null) throw new Error("no bash to trace with");
  const root = mkdtempSync(join(tmpdir(), "dsh-bash-trace-"));
  const empty = join(root, "empty-path");
  mkdirSync(empty);
  const init = join(root, "init.sh");
  // The handler runs a clean bash (no BASH_ENV) by absolute path, so it needs no builtin of
  // the traced shell, and writes one file per command so concurrent pipeline parts never mix.
  const record = `f=$(${MKTEMP} "$1/c.XXXXXXXX") && printf "%s\\0" "\${@:3}" > "$f"; exit "$2"`;
  writeFileSync(
    init,
    [
      "command_not_found_handle() {",
      `  ${ENV} -i ${BASH} -c '${record}' trace "$TRACE_DIR" "$TRACE_STATUS" "$@"`,
      "}",
      "enable -n $(compgen -b)",
      "",
    ].join("\n"),
  );
  let runs = 0;
  const shell = BASH;
  return {
    async run(text, status) {
      const dir = join(root, `run-${runs++}`);
      const records = join(dir, "records");
      const cwd = join(dir, "cwd");
      mkdirSync(records, { recursive: true });
      mkdirSync(cwd);
      const proc = Bun.spawn([shell, "-c", "--", text], {
        cwd,
        env: { PATH: empty, BASH_ENV: init, TRACE_DIR: records, TRACE_STATUS: String(status) },
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      await proc.exited;
      const commands = readdirSync(records).map((name) =>
        readFileSync(join(records, name), "utf8").split("\0").slice(0, -1),
      );
      const created = readdirSync(cwd);
      rmSync(dir, { recursive: true, force: true });
      return { commands: commands.sort(byWords), created };
    },
    async parses(text) {
      const proc = Bun.spawn([shell, "-n", "-c", "--", text], {
        env: { PATH: empty },
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      return (await proc.exited) === 0;
    },
    [Symbol.dispose]() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Whether the tracer sees every one of these commands (none is named by a path). */
export function tracesAll(commands: readonly (readonly string[])[]): boolean {
  return commands.every((words) => !(words[0] ?? "").includes("/"));
}

/** Orders commands by their words, so two runs of the same lines compare equal. */
export function byWords(a: readonly string[], b: readonly string[]): number {
  const left = JSON.stringify(a);
  const right = JSON.stringify(b);
  return left < right ? -1 : left > right ? 1 : 0;
}
