import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { PRESETS } from "../../src/permission/knobs.ts";
import { recordingAnswerer, useFileTools } from "./harness.ts";
import type { ContextOptions } from "./harness.ts";

const fx = useFileTools();

const write = (args: Record<string, unknown>, options?: ContextOptions) =>
  fx.run("write_file", args, options);

describe("write_file", () => {
  test("creates a file and its parent directories without asking", async () => {
    const answerer = recordingAnswerer("deny");
    const call = await write(
      { path: "a/b/new.txt", content: "one\ntwo\n" },
      { answerers: [answerer] },
    );
    const file = path.join(fx.box.root, "a/b/new.txt");
    expect(call.result.output).toBe("Created a/b/new.txt (2 lines)");
    expect(call.intent).toEqual({
      type: "diff",
      title: "Write a/b/new.txt",
      path: file,
      oldText: null,
      newText: "one\ntwo\n",
      locations: [{ path: file, line: 1 }],
    });
    expect(fx.box.read("a/b/new.txt")).toBe("one\ntwo\n");
    expect(answerer.requests).toEqual([]);
    expect(fs.readdirSync(path.join(fx.box.root, "a/b"))).toEqual(["new.txt"]);
  });

  test("replaces a file atomically, keeps its mode, and the result shows the exact diff", async () => {
    const file = fx.box.write("run.sh", "#!/bin/sh\necho old\n");
    fs.chmodSync(file, 0o750);
    const inode = fs.statSync(file).ino;
    const call = await write({ path: file, content: "#!/bin/sh\necho new\n" });
    expect(call.result.output).toBe("Wrote run.sh (2 lines)");
    expect(call.intent).toEqual({
      type: "diff",
      title: "Write run.sh",
      path: file,
      oldText: "#!/bin/sh\necho old\n",
      newText: "#!/bin/sh\necho new\n",
      locations: [{ path: file, line: 2 }],
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o750);
    expect(fs.statSync(file).ino).not.toBe(inode);
  });

  test("announces the call with the file and no guessed diff (the result brings the exact one)", () => {
    expect(
      fx.registry.presentCall("write_file", '{"path":"x.ts","content":"hi"}', { cwd: fx.box.root }),
    ).toEqual({
      type: "generic",
      kind: "edit",
      title: "Write x.ts",
      locations: [{ path: path.join(fx.box.root, "x.ts") }],
    });
  });

  test("a write into a directory path or a binary file is refused", async () => {
    fs.mkdirSync(path.join(fx.box.root, "d"));
    fx.box.write("b.bin", new Uint8Array([1, 0, 2]));
    expect((await write({ path: "d", content: "x" })).result).toEqual({
      isError: true,
      output: `${path.join(fx.box.root, "d")} is a directory`,
    });
    expect((await write({ path: "b.bin", content: "x" })).result.isError).toBe(true);
    expect(fs.readFileSync(path.join(fx.box.root, "b.bin"))).toEqual(Buffer.from([1, 0, 2]));
  });

  test("a file under a regular file is refused", async () => {
    fx.box.write("f", "x");
    const call = await write({ path: "f/child.txt", content: "y" });
    expect(call.result).toEqual({
      isError: true,
      output: `${path.join(fx.box.root, "f")} is not a directory`,
    });
  });
});

describe("write policy", () => {
  const escapes = () => [
    {
      name: "through ..",
      path: "../../escape.txt",
      real: path.join(path.dirname(fx.box.base), "escape.txt"),
    },
    {
      name: "sibling prefix R/../R-evil",
      path: "../R-evil/x.txt",
      real: path.join(fx.box.evil, "x.txt"),
    },
    {
      name: "an absolute path",
      path: path.join(fx.box.evil, "abs.txt"),
      real: path.join(fx.box.evil, "abs.txt"),
    },
  ];

  test("a write outside the workspace with no answerer is denied and writes nothing", async () => {
    for (const outside of escapes()) {
      const call = await write({ path: outside.path, content: "x" });
      expect(call.result).toEqual({
        isError: true,
        output: `writing ${outside.real} was not approved (the file is outside the workspace ${fx.box.root}); nothing was written`,
      });
      expect(fs.existsSync(outside.real)).toBe(false);
    }
  });

  test("a write outside the workspace asks, with the diff, and an allow writes it", async () => {
    const answerer = recordingAnswerer("allow");
    const target = path.join(fx.box.evil, "ok.txt");
    const call = await write(
      { path: "../R-evil/ok.txt", content: "fine" },
      { answerers: [answerer] },
    );
    expect(call.result.output).toBe(`Created ${target} (1 line)`);
    expect(fs.readFileSync(target, "utf8")).toBe("fine");
    expect(answerer.requests).toEqual([
      {
        sessionId: "s-test",
        toolCallId: "call-1",
        kind: "write",
        title: `Write ${target}`,
        reason: `the file is outside the workspace ${fx.box.root}`,
        intent: {
          type: "diff",
          title: `Write ${target}`,
          path: target,
          oldText: null,
          newText: "fine",
          locations: [{ path: target, line: 1 }],
        },
        subject: { type: "write", path: target },
        cwd: fx.box.root,
      },
    ]);
  });

  test("a symlinked file or directory leading out of the workspace counts as outside", async () => {
    const victim = path.join(fx.box.evil, "victim.txt");
    fs.writeFileSync(victim, "original");
    fs.symlinkSync(victim, path.join(fx.box.root, "link.txt"));
    fs.symlinkSync(fx.box.evil, path.join(fx.box.root, "d"));
    const answerer = recordingAnswerer("deny");
    const viaFile = await write({ path: "link.txt", content: "pwned" }, { answerers: [answerer] });
    const viaDir = await write({ path: "d/new.txt", content: "pwned" }, { answerers: [answerer] });
    expect(viaFile.result.output).toStartWith(`writing ${victim} was not approved `);
    expect(viaDir.result.output).toStartWith(
      `writing ${path.join(fx.box.evil, "new.txt")} was not approved `,
    );
    expect(answerer.requests.map((request) => request.reason)).toEqual([
      `the file is outside the workspace ${fx.box.root} (${path.join(fx.box.root, "link.txt")} is a symlink to it)`,
      `the file is outside the workspace ${fx.box.root} (${path.join(fx.box.root, "d/new.txt")} is a symlink to it)`,
    ]);
    expect(fs.readFileSync(victim, "utf8")).toBe("original");
    expect(fs.readdirSync(fx.box.evil)).toEqual(["victim.txt"]);
    expect(fs.readlinkSync(path.join(fx.box.root, "link.txt"))).toBe(victim);
  });

  test("full access writes anywhere unasked but never follows a workspace symlink out", async () => {
    fs.symlinkSync(fx.box.evil, path.join(fx.box.root, "d"));
    const options = {
      knobs: PRESETS["danger-full-access"],
      answerers: [recordingAnswerer("deny")],
    };
    const direct = await write({ path: path.join(fx.box.evil, "a.txt"), content: "a" }, options);
    const viaLink = await write({ path: "d/b.txt", content: "b" }, options);
    expect(direct.result.output).toBe(`Created ${path.join(fx.box.evil, "a.txt")} (1 line)`);
    expect(viaLink.result).toEqual({
      isError: true,
      output:
        `${path.join(fx.box.root, "d/b.txt")} resolves through a symlink to ${path.join(fx.box.evil, "b.txt")}, outside ${fx.box.root}; ` +
        "dsh does not follow it silently (name the real path if that is the file you mean)",
    });
    expect(fs.readdirSync(fx.box.evil)).toEqual(["a.txt"]);
  });

  test("a symlink that stays inside the workspace is written through to its target", async () => {
    fx.box.write("real.txt", "v1");
    fs.symlinkSync(path.join(fx.box.root, "real.txt"), path.join(fx.box.root, "alias.txt"));
    const call = await write({ path: "alias.txt", content: "v2" });
    expect(call.result.output).toBe("Wrote real.txt (1 line)");
    expect(fx.box.read("real.txt")).toBe("v2");
    expect(fs.lstatSync(path.join(fx.box.root, "alias.txt")).isSymbolicLink()).toBe(true);
  });

  test("a hard-linked file is refused", async () => {
    const outside = path.join(fx.box.evil, "shared.txt");
    fs.writeFileSync(outside, "original");
    fs.linkSync(outside, path.join(fx.box.root, "h.txt"));
    const call = await write(
      { path: "h.txt", content: "x" },
      { answerers: [recordingAnswerer("allow")] },
    );
    expect(call.result).toEqual({
      isError: true,
      output: `${path.join(fx.box.root, "h.txt")} has 2 hard links; dsh does not write a file that may alias another`,
    });
    expect(fs.readFileSync(outside, "utf8")).toBe("original");
  });

  test(".git internals and .dsh are refused under every preset, existing or not", async () => {
    fx.box.write(".git/config", "[core]\n");
    for (const preset of ["workspace-write", "danger-full-access"] as const) {
      const options = { knobs: PRESETS[preset], answerers: [recordingAnswerer("allow")] };
      for (const target of [
        ".git/hooks/post-checkout",
        ".git/config",
        ".dsh/settings",
        "sub/.GIT/objects/x",
      ]) {
        const call = await write({ path: target, content: "x" }, options);
        expect(call.result.isError).toBe(true);
        expect(call.result.output).toContain("which dsh never writes");
      }
    }
    expect(fx.box.read(".git/config")).toBe("[core]\n");
    expect(fs.existsSync(path.join(fx.box.root, ".git/hooks"))).toBe(false);
    expect(fs.existsSync(path.join(fx.box.root, ".dsh"))).toBe(false);
  });

  test("a symlink into .git is refused too", async () => {
    fx.box.write(".git/hooks/.keep", "");
    fs.symlinkSync(path.join(fx.box.root, ".git/hooks"), path.join(fx.box.root, "hooks"));
    const call = await write({ path: "hooks/pre-commit", content: "x" });
    expect(call.result.output).toContain("which dsh never writes");
    expect(fs.readdirSync(path.join(fx.box.root, ".git/hooks"))).toEqual([".keep"]);
  });

  test("read-only asks for every write; a deny leaves the file unchanged, an allow writes", async () => {
    fx.box.write("a.txt", "before");
    const denier = recordingAnswerer("deny");
    const denied = await write(
      { path: "a.txt", content: "after" },
      { knobs: PRESETS["read-only"], answerers: [denier] },
    );
    expect(denied.result).toEqual({
      isError: true,
      output: `writing ${path.join(fx.box.root, "a.txt")} was not approved (the session is read-only); nothing was written`,
    });
    expect(fx.box.read("a.txt")).toBe("before");
    expect(denier.requests.map((request) => request.intent)).toEqual([
      {
        type: "diff",
        title: "Write a.txt",
        path: path.join(fx.box.root, "a.txt"),
        oldText: "before",
        newText: "after",
        locations: [{ path: path.join(fx.box.root, "a.txt"), line: 1 }],
      },
    ]);
    const allowed = await write(
      { path: "a.txt", content: "after" },
      { knobs: PRESETS["read-only"], answerers: [recordingAnswerer("allow")] },
    );
    expect(allowed.result.isError).toBe(false);
    expect(fx.box.read("a.txt")).toBe("after");
  });

  test(".env files ask even inside the workspace", async () => {
    const answerer = recordingAnswerer("deny");
    const call = await write({ path: ".env.local", content: "X=1" }, { answerers: [answerer] });
    expect(call.result.output).toBe(
      `writing ${path.join(fx.box.root, ".env.local")} was not approved (files named .env* usually hold secrets); nothing was written`,
    );
    expect(fs.existsSync(path.join(fx.box.root, ".env.local"))).toBe(false);
  });

  test("a cancel while the user is being asked writes nothing", async () => {
    const controller = new AbortController();
    const answerer = {
      async answer() {
        controller.abort();
        return "allow" as const;
      },
    };
    const call = await write(
      { path: "../R-evil/c.txt", content: "x" },
      { answerers: [answerer], signal: controller.signal },
    );
    expect(call.result).toEqual({ isError: true, output: "cancelled" });
    expect(fs.readdirSync(fx.box.evil)).toEqual([]);
  });

  test("bad paths are refused without a crash", async () => {
    const outputs = await Promise.all(
      ["", "x\0y", "p/".repeat(2100)].map(
        async (p) => (await write({ path: p, content: "x" })).result.output,
      ),
    );
    expect(outputs).toEqual([
      "path is empty",
      "path contains a NUL byte",
      "path is longer than 4096 characters",
    ]);
  });
});
