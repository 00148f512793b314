/** grep and glob skip what git and ripgrep would, and search an ignored place when it is named. */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { useFileTools } from "./harness.ts";

const fx = useFileTools();
const run = (tool: string, args: Record<string, unknown>) => fx.run(tool, args);

/** A repository in the workspace: `.git/HEAD` marks its root. */
function repository(): void {
  fx.box.write(".git/HEAD", "ref: refs/heads/main\n");
}

const greps = async (args: Record<string, unknown>) =>
  (await run("grep", { pattern: "needle", ...args })).result.output.split("\n");
const globs = async (args: Record<string, unknown>) =>
  (await run("glob", { pattern: "**/*.txt", ...args })).result.output.split("\n").sort();

describe("ignore rules", () => {
  test("a root .gitignore: directory-only, anchored and wildcard patterns, with a note", async () => {
    repository();
    fx.box.write(".gitignore", "target/\n/root-only.txt\n*.log\n");
    fx.box.write("target/debug/out.txt", "needle\n");
    fx.box.write("src/target", "needle as a file named target\n");
    fx.box.write("root-only.txt", "needle\n");
    fx.box.write("src/root-only.txt", "needle deeper\n");
    fx.box.write("build.log", "needle\n");
    fx.box.write("src/keep.txt", "needle\n");
    expect(await greps({})).toEqual([
      "src/keep.txt:1:needle",
      "src/root-only.txt:1:needle deeper",
      "src/target:1:needle as a file named target",
      "[3 entries skipped as ignored (.gitignore, .ignore, .git/info/exclude); name the path to search there]",
    ]);
    expect(await globs({})).toEqual([
      "[3 entries skipped as ignored (.gitignore, .ignore, .git/info/exclude); name the path to search there]",
      "src/keep.txt",
      "src/root-only.txt",
    ]);
  });

  test("nested .gitignore files apply below their directory, and negations re-include", async () => {
    repository();
    fx.box.write(".gitignore", "*.gen.txt\n");
    fx.box.write("pkg/.gitignore", "!keep.gen.txt\nlocal/\n");
    fx.box.write("a.gen.txt", "needle\n");
    fx.box.write("pkg/keep.gen.txt", "needle\n");
    fx.box.write("pkg/other.gen.txt", "needle\n");
    fx.box.write("pkg/local/x.txt", "needle\n");
    fx.box.write("local/x.txt", "needle\n");
    expect(await greps({})).toEqual([
      "local/x.txt:1:needle",
      "pkg/keep.gen.txt:1:needle",
      "[3 entries skipped as ignored (.gitignore, .ignore, .git/info/exclude); name the path to search there]",
    ]);
  });

  test(".git/info/exclude and the global excludes file apply in a repository", async () => {
    repository();
    fx.box.write(".git/info/exclude", "excluded/\n");
    fs.mkdirSync(path.join(fx.box.home, ".config", "git"), { recursive: true });
    fs.writeFileSync(path.join(fx.box.home, ".config", "git", "ignore"), "*.swp.txt\n");
    fx.box.write("excluded/a.txt", "needle\n");
    fx.box.write("b.swp.txt", "needle\n");
    fx.box.write("c.txt", "needle\n");
    const output = (await fx.run("grep", { pattern: "needle" })).result.output;
    expect(output.split("\n")[0]).toBe("c.txt:1:needle");
    expect(output).toContain("[2 entries skipped as ignored");
  });

  test(".ignore and .rgignore win over .gitignore; they apply outside a repository too", async () => {
    fx.box.write(".gitignore", "*.txt\n");
    fx.box.write(".ignore", "!wanted.txt\nvendor/\n");
    fx.box.write(".rgignore", "secret-plan.txt\n");
    fx.box.write("wanted.txt", "needle\n");
    fx.box.write("other.txt", "needle\n");
    fx.box.write("secret-plan.txt", "needle\n");
    fx.box.write("vendor/lib.js", "needle\n");
    fx.box.write("main.js", "needle\n");
    expect(await greps({})).toEqual([
      "main.js:1:needle",
      "wanted.txt:1:needle",
      "[3 entries skipped as ignored (.gitignore, .ignore, .git/info/exclude); name the path to search there]",
    ]);
  });

  test("hidden files are skipped unless the path or pattern names them, as ripgrep does", async () => {
    fx.box.write(".env.txt", "needle\n");
    fx.box.write(".config/app.txt", "needle\n");
    fx.box.write("visible.txt", "needle\n");
    expect(await greps({})).toEqual(["visible.txt:1:needle"]);
    expect(await greps({ path: ".config" })).toEqual([".config/app.txt:1:needle"]);
    expect(await greps({ glob: ".config/*.txt" })).toEqual([".config/app.txt:1:needle"]);
    expect(await globs({ pattern: ".config/*.txt" })).toEqual([".config/app.txt"]);
  });

  test("a path or pattern that names an ignored place searches it", async () => {
    repository();
    fx.box.write(".gitignore", "target/\n");
    fx.box.write("target/debug/out.txt", "needle\n");
    expect(await greps({ path: "target" })).toEqual(["target/debug/out.txt:1:needle"]);
    expect(await greps({ path: "target/debug/out.txt" })).toEqual([
      "target/debug/out.txt:1:needle",
    ]);
    expect(await globs({ pattern: "target/**/*.txt" })).toEqual(["target/debug/out.txt"]);
  });

  test("outside a repository, an ancestor's .gitignore does not hide the project", async () => {
    // The home holds the workspace's parent here: a dotfiles `.gitignore` of `*` there.
    fs.writeFileSync(path.join(path.dirname(fx.box.root), ".gitignore"), "*\n");
    fx.box.write("a.txt", "needle\n");
    expect(await greps({})).toEqual(["a.txt:1:needle"]);
  });
});
