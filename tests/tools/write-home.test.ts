import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { PRESETS } from "../../src/permission/knobs.ts";
import type { Knobs } from "../../src/permission/knobs.ts";
import { recordingAnswerer, toolContext, useFileTools } from "./harness.ts";
import type { ContextOptions } from "./harness.ts";

const fx = useFileTools();

/** Runs a tool with `cwd` as the session root (the fixture's own runs use `R`). */
const runIn = (
  cwd: string,
  tool: string,
  args: Record<string, unknown>,
  options?: ContextOptions,
) => fx.registry.execute(tool, JSON.stringify(args), toolContext(cwd, options));

/** The refusal of a write into a credential store. */
const refused = (file: string, store?: string) => ({
  isError: true,
  output:
    store === undefined
      ? `${file} holds credentials; dsh does not write it`
      : `${file} is under ${store}, which holds credentials; dsh does not write it`,
});

const dotfileReason = (home: string) =>
  `the file is among the dotfiles of ${home}, which shells and tools load on their own`;

const workspaceNever: Knobs = { sandboxMode: "workspace-write", approvalPolicy: "never" };

describe("credential stores under home are never written", () => {
  test("even when the session root is home and the user would allow it", async () => {
    const home = fx.box.home;
    fs.mkdirSync(path.join(home, ".ssh"));
    fs.writeFileSync(path.join(home, ".ssh", "config"), "Host x\n");
    const answerer = recordingAnswerer("allow");
    const options = { answerers: [answerer] };
    const at = (relative: string) => path.join(home, relative);
    const calls = [
      await runIn(home, "write_file", { path: ".ssh/authorized_keys", content: "k" }, options),
      await runIn(home, "write_file", { path: ".netrc", content: "machine x" }, options),
      await runIn(home, "write_file", { path: ".aws/credentials", content: "[x]" }, options),
      await runIn(
        home,
        "edit_file",
        { path: ".ssh/config", old_string: "x", new_string: "y" },
        options,
      ),
    ];
    expect(calls.map((call) => call.result)).toEqual([
      refused(at(".ssh/authorized_keys"), at(".ssh")),
      refused(at(".netrc")),
      refused(at(".aws/credentials"), at(".aws")),
      refused(at(".ssh/config"), at(".ssh")),
    ]);
    expect(answerer.requests).toEqual([]);
    expect(fs.readdirSync(path.join(home, ".ssh"))).toEqual(["config"]);
    expect(fs.readFileSync(path.join(home, ".ssh", "config"), "utf8")).toBe("Host x\n");
    expect(fs.existsSync(path.join(home, ".netrc"))).toBe(false);
    expect(fs.existsSync(path.join(home, ".aws"))).toBe(false);
  });

  test("under every preset and under never, also through a workspace symlink", async () => {
    fs.mkdirSync(path.join(fx.box.home, ".ssh"));
    fs.symlinkSync(path.join(fx.box.home, ".ssh"), path.join(fx.box.root, "keys"));
    const knobsList: Knobs[] = [...Object.values(PRESETS), workspaceNever];
    for (const knobs of knobsList) {
      const options = { knobs, answerers: [recordingAnswerer("allow")] };
      const direct = path.join(fx.box.home, ".ssh/authorized_keys");
      for (const target of [direct, "keys/authorized_keys"]) {
        const args = { path: target, content: "k" };
        const call = await runIn(fx.box.root, "write_file", args, options);
        expect(call.result.isError).toBe(true);
        expect(call.result.output).toEndWith("holds credentials; dsh does not write it");
      }
    }
    expect(fs.readdirSync(path.join(fx.box.home, ".ssh"))).toEqual([]);
  });
});

describe("dotfiles under home ask when the session root holds home", () => {
  const write = (cwd: string, file: string, options: ContextOptions) =>
    runIn(cwd, "write_file", { path: file, content: "x\n" }, options);
  const deniedOutput = (home: string, file: string) =>
    `writing ${path.join(home, file)} was not approved (${dotfileReason(home)}); nothing was written`;

  test("root = home: shell rc files, .gitconfig and .config ask; a deny writes nothing", async () => {
    const home = fx.box.home;
    fs.writeFileSync(path.join(home, ".bashrc"), "export A=1\n");
    const answerer = recordingAnswerer("deny");
    const options = { answerers: [answerer] };
    const edit = { path: ".bashrc", old_string: "A=1", new_string: "A=2" };
    const calls = [
      await runIn(home, "edit_file", edit, options),
      await write(home, ".gitconfig", options),
      await write(home, ".config/autostart/x.desktop", options),
      await write(home, "notes/todo.md", options),
    ];
    expect(calls.map((call) => call.result.output)).toEqual([
      deniedOutput(home, ".bashrc"),
      deniedOutput(home, ".gitconfig"),
      deniedOutput(home, ".config/autostart/x.desktop"),
      "Created notes/todo.md (1 line)",
    ]);
    expect(answerer.requests.map((request) => [request.title, request.reason])).toEqual(
      [".bashrc", ".gitconfig", ".config/autostart/x.desktop"].map((file) => [
        `Write ${path.join(home, file)}`,
        dotfileReason(home),
      ]),
    );
    expect(fs.readFileSync(path.join(home, ".bashrc"), "utf8")).toBe("export A=1\n");
    expect(fs.readdirSync(home).sort()).toEqual([".bashrc", "notes"]);
  });

  test("a dotfile that is a symlink into an ordinary directory of home asks too", async () => {
    const home = fx.box.home;
    fs.mkdirSync(path.join(home, "dotfiles"));
    fs.writeFileSync(path.join(home, "dotfiles", "bashrc"), "old\n");
    fs.symlinkSync(path.join(home, "dotfiles", "bashrc"), path.join(home, ".bashrc"));
    const call = await write(home, ".bashrc", { answerers: [recordingAnswerer("deny")] });
    expect(call.result.output).toBe(
      `writing ${path.join(home, "dotfiles/bashrc")} was not approved (${dotfileReason(home)}); nothing was written`,
    );
    expect(fs.readFileSync(path.join(home, "dotfiles", "bashrc"), "utf8")).toBe("old\n");
  });

  test("root = an ancestor of home or /: it asks, and an allow writes the dotfile", async () => {
    const fromRoot = await write("/", path.join(fx.box.home, ".profile"), {
      answerers: [recordingAnswerer("deny")],
    });
    expect(fromRoot.result.output).toBe(deniedOutput(fx.box.home, ".profile"));
    const answerer = recordingAnswerer("allow");
    const call = await write(fx.box.base, "home/.profile", { answerers: [answerer] });
    expect(call.result.output).toBe("Created home/.profile (1 line)");
    expect(answerer.requests.map((request) => request.reason)).toEqual([
      dotfileReason(fx.box.home),
    ]);
    expect(fs.readFileSync(path.join(fx.box.home, ".profile"), "utf8")).toBe("x\n");
  });

  test("under never the dotfile write is turned down unasked", async () => {
    const answerer = recordingAnswerer("allow");
    const options = { knobs: workspaceNever, answerers: [answerer] };
    const call = await write(fx.box.home, ".bashrc", options);
    expect(call.result).toEqual({
      isError: true,
      output: `writing ${path.join(fx.box.home, ".bashrc")} needs approval (${dotfileReason(fx.box.home)}), which the approval policy never gives; nothing was written`,
    });
    expect(answerer.requests).toEqual([]);
    expect(fs.existsSync(path.join(fx.box.home, ".bashrc"))).toBe(false);
  });

  test("a project inside a hidden directory of home writes its own files unasked", async () => {
    const project = path.join(fx.box.home, ".dotfiles");
    fs.mkdirSync(project);
    const answerer = recordingAnswerer("deny");
    const call = await write(project, "bashrc", { answerers: [answerer] });
    expect(call.result.output).toBe("Created bashrc (1 line)");
    expect(answerer.requests).toEqual([]);
  });

  test("full access writes a home dotfile unasked", async () => {
    const options = {
      knobs: PRESETS["danger-full-access"],
      answerers: [recordingAnswerer("deny")],
    };
    const call = await write(fx.box.home, ".bashrc", options);
    expect(call.result.output).toBe("Created .bashrc (1 line)");
  });
});
