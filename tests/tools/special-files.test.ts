import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { useFileTools } from "./harness.ts";

const fx = useFileTools();

/** Makes a named pipe that nobody ever opens for writing. */
function fifo(relative: string): string {
  const file = path.join(fx.box.root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const made = Bun.spawnSync(["mkfifo", file]);
  if (made.exitCode !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
  return file;
}

// A blocking open of a FIFO waits for a writer forever; these calls must come back at once.
describe("named pipes", () => {
  test("read_file refuses a FIFO, named directly or through a symlink", async () => {
    const pipe = fifo("pipe");
    fs.symlinkSync(pipe, path.join(fx.box.root, "to-pipe"));
    const direct = await fx.run("read_file", { path: "pipe" });
    const linked = await fx.run("read_file", { path: "to-pipe" });
    expect(direct.result).toEqual({
      isError: true,
      output: `${pipe} is a named pipe (FIFO), not a regular file`,
    });
    expect(linked.result).toEqual({
      isError: true,
      output: `${path.join(fx.box.root, "to-pipe")} is a named pipe (FIFO), not a regular file`,
    });
  });

  test("edit_file and write_file refuse a FIFO and leave it in place", async () => {
    const pipe = fifo("pipe");
    const edit = await fx.run("edit_file", { path: "pipe", old_string: "a", new_string: "b" });
    const write = await fx.run("write_file", { path: "pipe", content: "x" });
    expect(edit.result).toEqual({ isError: true, output: `${pipe} is not a regular file` });
    expect(write.result).toEqual(edit.result);
    expect(fs.lstatSync(pipe).isFIFO()).toBe(true);
  });

  test("grep over a directory holding a FIFO searches the other files", async () => {
    fifo("src/pipe");
    fx.box.write("src/a.txt", "needle\n");
    const walked = await fx.run("grep", { pattern: "needle" });
    const named = await fx.run("grep", { pattern: "needle", path: "src/pipe" });
    expect(walked.result.output).toBe("src/a.txt:1:needle");
    expect(named.result.output).toBe("No matches for /needle/ in src/pipe (0 files searched)");
  });

  test("glob lists around a FIFO", async () => {
    fifo("src/pipe");
    fx.box.write("src/a.txt", "");
    expect((await fx.run("glob", { pattern: "src/*" })).result.output).toBe("src/a.txt");
  });
});
