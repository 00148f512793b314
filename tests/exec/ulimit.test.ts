/**
 * The process bound of sandboxed commands where there is no prlimit (macOS): the command's
 * shell sets it with `ulimit`, soft and hard, never above the hard limit dsh itself has. Plain
 * bash runs it here as it does there.
 */
import { describe, expect, test } from "bun:test";
import { ulimitArgv } from "../../src/exec/limits.ts";

describe("the shell's ulimit, where there is no prlimit (macOS)", () => {
  const run = (argv: string[]) => {
    const done = Bun.spawnSync(argv);
    return { code: done.exitCode, out: done.stdout.toString() };
  };

  test("bounds processes soft and hard, joins stderr to stdout, passes the command verbatim", () => {
    const argv = ulimitArgv("/bin/bash", 99, 'ulimit -S -u; ulimit -H -u; echo "$0 $1" >&2');
    expect(run(argv)).toEqual({ code: 0, out: "99\n99\n/bin/bash \n" });
  });

  test("a bound above the hard limit dsh has is lowered to it instead of failing", () => {
    const lowered = [
      "/bin/bash",
      "-c",
      'ulimit -u 50 && exec "$@"',
      "bash",
      ...ulimitArgv("/bin/bash", 4096, "ulimit -u"),
    ];
    expect(run(lowered)).toEqual({ code: 0, out: "50\n" });
  });
});
