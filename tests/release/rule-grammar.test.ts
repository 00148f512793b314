/**
 * Bash's grammar, which command rules are checked with, inside what `bun run build:all` made:
 * every target's executable holds both WebAssembly files, and the linux-x64 one, taken from its
 * archive, checks a saved rule with them in `dsh exec`.
 */
import { afterAll, describe, expect } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bashGrammar from "tree-sitter-bash/tree-sitter-bash.wasm" with { type: "file" };
import runtime from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import { TARGETS, archiveName } from "../../scripts/targets.ts";
import { startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { releaseDir, releaseTest } from "./release-dir.ts";

const work = mkdtempSync(join(tmpdir(), "dsh-release-grammar-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The executable in a target's archive, read without unpacking it to disk. */
async function executableOf(name: string): Promise<Buffer> {
  const target = TARGETS.find((t) => t.name === name);
  if (target === undefined) throw new Error(`no target ${name}`);
  const archive = join(releaseDir, archiveName(target));
  const proc = Bun.spawn(
    target.archive === "zip"
      ? ["unzip", "-p", archive, target.executable]
      : ["tar", "-xzOf", archive, target.executable],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const [bytes, stderr, code] = await Promise.all([
    new Response(proc.stdout).bytes(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`reading ${archive}: ${stderr}`);
  return Buffer.from(bytes);
}

describe("bash's grammar in the release archives", () => {
  for (const target of TARGETS) {
    releaseTest(
      `the ${target.name} executable holds the grammar and the tree-sitter runtime`,
      async () => {
        const files = await Promise.all(
          [bashGrammar, runtime].map(async (path) => Buffer.from(await Bun.file(path).bytes())),
        );
        const executable = await executableOf(target.name);
        expect(files.map((file) => executable.includes(file))).toEqual([true, true]);
      },
    );
  }

  releaseTest("the linux-x64 binary checks a saved rule with it in dsh exec", async () => {
    const binary = join(work, "dsh");
    await Bun.write(binary, await executableOf("linux-x64"));
    chmodSync(binary, 0o755);
    await using rig = await startCliRig("dsh-release-rules", binary);
    const project = rig.project("rules");
    mkdirSync(project.home, { recursive: true });
    const rules = { [project.cwd]: [{ type: "command", words: ["git", "status"] }] };
    writeFileSync(
      join(project.home, "rules.json"),
      JSON.stringify({ version: 1, projects: rules }),
    );
    const escalate = (id: string, command: string) => ({
      id,
      name: "bash",
      args: { command, escalate: true, justification: "x" },
    });
    rig.server.script(
      toolTurn([escalate("plain", "git status"), escalate("escape", "git status '>'&touch X")]),
      textTurn("done"),
    );
    const exec = await rig.run(["exec", "check"], project);
    const messages = (rig.server.requests[1]?.body.messages ?? []) as {
      role?: string;
      tool_call_id?: string;
      content?: unknown;
    }[];
    const denied = (id: string) =>
      String(messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content).includes(
        "The user did not allow running this command outside the sandbox",
      );
    expect({
      code: exec.code,
      plain: denied("plain"),
      escape: denied("escape"),
      marker: existsSync(join(project.cwd, "X")),
    }).toEqual({ code: 0, plain: false, escape: true, marker: false });
  });
});
