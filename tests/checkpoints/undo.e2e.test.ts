/**
 * Checkpoints through the compiled `dsh acp`: a turn that edits with the file tools and
 * creates, deletes and chmods files with commands is undone exactly, the project's own `.git`
 * byte for byte as it was and ignored files untouched; a file changed since outside dsh is
 * asked about, not overwritten; /diff shows the session's changes.
 */
import { beforeAll, describe, expect } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { sandboxTest } from "../exec/sandbox-support.ts";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import { ensureBinary } from "../support/binary.ts";
import { TEST_SANDBOX } from "../support/sandbox-choice.ts";
import { promptFor, userTexts } from "./acp-turns.ts";
import { type ModelServer, startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const m = acp.methods.agent.session;

beforeAll(async () => {
  await ensureBinary();
});

/** Every file under `dir` with its mode and bytes: what "byte-identical" compares. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else out[relative(dir, path)] = `${stat.mode.toString(8)} ${readFileSync(path, "base64")}`;
    }
  };
  walk(dir);
  return out;
}

/** As `tree`, names kept as bytes (hex) so that names that are not UTF-8 compare exactly. */
function byteTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const root = Buffer.from(dir);
  const walk = (at: Buffer) => {
    for (const name of readdirSync(at, { encoding: "buffer" })) {
      const path = Buffer.concat([at, Buffer.from("/"), name]);
      const stat = statSync(path);
      const key = path.subarray(root.length + 1).toString("hex");
      if (stat.isDirectory()) walk(path);
      else out[key] = `${stat.mode.toString(8)} ${readFileSync(path, "base64")}`;
    }
  };
  walk(root);
  return out;
}

function withoutGit(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter(([path]) => !path.startsWith(".git/")));
}

function git(cwd: string, ...args: string[]): void {
  const run = Bun.spawnSync(["git", ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
}

/** A committed project with an ignored file, an executable to be, and files to change. */
function project(cwd: string): void {
  writeFileSync(join(cwd, ".gitignore"), "ignored.log\n");
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  writeFileSync(join(cwd, "gone.txt"), "to be deleted\n");
  writeFileSync(join(cwd, "run.sh"), "#!/bin/sh\necho hi\n");
  chmodSync(join(cwd, "run.sh"), 0o644);
  writeFileSync(join(cwd, "ignored.log"), "log 1\n");
  git(cwd, "init", "-q");
  git(cwd, "add", ".");
  git(cwd, "commit", "-qm", "start");
  // Untracked and not ignored: checkpoints cover it too.
  writeFileSync(join(cwd, "notes.md"), "draft\n");
}

function lastText(dsh: AcpProcess, sessionId: string): string {
  const chunks: string[] = [];
  for (const n of dsh.updates) {
    if (n.sessionId !== sessionId) continue;
    const u = n.update;
    if (u.sessionUpdate === "user_message_chunk") chunks.length = 0;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
      chunks.push(u.content.text);
  }
  return chunks.join("");
}

const prompt = promptFor;

/** The turn that changes files both ways: file tools and commands. */
function scriptChangingTurn(model: ModelServer): void {
  model.script(
    toolTurn([
      {
        id: "e1",
        name: "edit_file",
        args: { path: "a.txt", old_string: "alpha", new_string: "beta" },
      },
      { id: "w1", name: "write_file", args: { path: "src/new.ts", content: "export {};\n" } },
    ]),
    toolTurn([
      {
        id: "b1",
        name: "bash",
        args: {
          command:
            "echo made > made.txt && rm gone.txt && chmod +x run.sh && echo 'log 2' >> ignored.log && mkdir -p out/deep && echo x > out/deep/y",
        },
      },
    ]),
    textTurn("changed"),
  );
}

describe("/undo", () => {
  sandboxTest(
    "undoes file-tool edits and command changes exactly; .git and ignored files untouched",
    async () => {
      await using model = await startModelServer();
      await using dsh = await spawnAcp({ baseUrl: model.url });
      await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      project(dsh.cwd);
      const gitBefore = tree(join(dsh.cwd, ".git"));
      const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
      const before = tree(dsh.cwd);
      delete before["ignored.log"];

      scriptChangingTurn(model);
      expect((await prompt(dsh, sessionId, "change things")).stopReason).toBe("end_turn");
      expect(readFileSync(join(dsh.cwd, "a.txt"), "utf8")).toBe("beta\n");
      expect(existsSync(join(dsh.cwd, "gone.txt"))).toBe(false);
      expect(statSync(join(dsh.cwd, "run.sh")).mode & 0o111).not.toBe(0);

      const diff = await prompt(dsh, sessionId, "/diff");
      // The file list comes first, then the unified diff.
      expect(diff.reply).toContain("M\ta.txt");
      expect(diff.reply).toContain("D\tgone.txt");
      expect(diff.reply).toContain("A\tmade.txt");
      expect(diff.reply).toContain("-alpha\n+beta");
      expect(diff.reply).not.toContain("ignored.log");
      expect(diff.reply.indexOf("A\tsrc/new.ts")).toBeLessThan(diff.reply.indexOf("diff --git"));

      const undo = await prompt(dsh, sessionId, "/undo");
      expect(undo.stopReason).toBe("end_turn");
      for (const line of [
        "restored   a.txt",
        "restored   run.sh",
        "re-created gone.txt",
        "removed    made.txt",
        "removed    src/new.ts",
        "removed    out/deep/y",
      ]) {
        expect(undo.reply).toContain(line);
      }
      const after = tree(dsh.cwd);
      // The ignored file keeps what the command wrote: checkpoints never cover it.
      expect(after["ignored.log"]).toBe(
        `${statSync(join(dsh.cwd, "ignored.log")).mode.toString(8)} ${Buffer.from("log 1\nlog 2\n").toString("base64")}`,
      );
      delete after["ignored.log"];
      expect(withoutGit(after)).toEqual(withoutGit(before));
      expect(existsSync(join(dsh.cwd, "out"))).toBe(false);
      expect(existsSync(join(dsh.cwd, "src"))).toBe(false);
      // The project's own git: objects, refs, index and config exactly as they were.
      expect(tree(join(dsh.cwd, ".git"))).toEqual(gitBefore);

      // Nothing left to undo.
      expect((await prompt(dsh, sessionId, "/undo")).reply).toContain(
        "no turn of this session changed files",
      );
      // The checkpoints go with their session.
      const store = join(dsh.home, "checkpoints", sessionId);
      expect(existsSync(store)).toBe(true);
      expect(await dsh.agent.request(m.delete, { sessionId })).toEqual({});
      expect(existsSync(store)).toBe(false);
      expect(dsh.problems).toEqual([]);
    },
  );

  sandboxTest(
    "names that are not UTF-8, or hold a newline, go back exactly and are shown escaped",
    async () => {
      await using model = await startModelServer();
      await using dsh = await spawnAcp({ baseUrl: model.url });
      await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      const at = (...parts: (string | number[])[]) =>
        Buffer.concat([
          Buffer.from(`${dsh.cwd}/`),
          ...parts.map((part) =>
            typeof part === "string" ? Buffer.from(part) : Buffer.from(part),
          ),
        ]);
      writeFileSync(at("e", [0xfe], ".txt"), "one\n");
      writeFileSync(at("d", [0xfd], ".txt"), "two\n");
      writeFileSync(at("nl\nname.txt"), "three\n");
      // Two names the same once not-UTF-8 bytes are replaced: only the new one goes.
      writeFileSync(at("k", [0xfe], ".txt"), "keep\n");
      mkdirSync(at("dir", [0xfc]));
      writeFileSync(at("dir", [0xfc], "/in.txt"), "inside\n");
      const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
      const before = byteTree(dsh.cwd);
      const name = (octal: string) => `"$(printf '${octal}')"`;
      model.script(
        toolTurn([
          {
            id: "b1",
            name: "bash",
            args: {
              command: [
                `printf 'changed\\n' > ${name("e\\376.txt")}`,
                `rm ${name("d\\375.txt")}`,
                `rm -r ${name("dir\\374")}`,
                `printf 'more\\n' >> ${name("nl\\nname.txt")}`,
                `printf 'new\\n' > ${name("n\\377.txt")}`,
                `printf 'new\\n' > ${name("k\\377.txt")}`,
                `printf 'new\\n' > ${name("made\\nhere.txt")}`,
              ].join(" && "),
            },
          },
        ]),
        textTurn("renamed nothing"),
      );
      await prompt(dsh, sessionId, "change odd names");
      expect(existsSync(at("d", [0xfd], ".txt"))).toBe(false);
      expect(readFileSync(at("k", [0xff], ".txt"), "utf8")).toBe("new\n");
      const diff = (await prompt(dsh, sessionId, "/diff")).reply;
      for (const line of ['M\t"e\\xfe.txt"', 'D\t"d\\xfd.txt"', 'A\t"made\\nhere.txt"']) {
        expect(diff).toContain(line);
      }
      const undo = (await prompt(dsh, sessionId, "/undo")).reply;
      for (const line of [
        'restored   "e\\xfe.txt"',
        'restored   "nl\\nname.txt"',
        're-created "d\\xfd.txt"',
        're-created "dir\\xfc/in.txt"',
        'removed    "n\\xff.txt"',
        'removed    "k\\xff.txt"',
        'removed    "made\\nhere.txt"',
      ]) {
        expect(undo).toContain(line);
      }
      expect(byteTree(dsh.cwd)).toEqual(before);
      expect(dsh.problems).toEqual([]);
    },
  );

  sandboxTest(
    "a file changed since outside dsh is asked about, and kept when refused",
    async () => {
      await using model = await startModelServer();
      const asked: acp.RequestPermissionRequest[] = [];
      await using dsh = await spawnAcp({
        baseUrl: model.url,
        onPermission: (params) => {
          asked.push(params);
          return { outcome: { outcome: "selected", optionId: "no" } };
        },
      });
      await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      project(dsh.cwd);
      const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
      model.script(
        toolTurn([
          { id: "w1", name: "write_file", args: { path: "a.txt", content: "by dsh\n" } },
          { id: "w2", name: "write_file", args: { path: "notes.md", content: "by dsh too\n" } },
        ]),
        textTurn("written"),
      );
      await prompt(dsh, sessionId, "write");
      // The user edits one of the files after the turn, in the editor.
      writeFileSync(join(dsh.cwd, "a.txt"), "by the user\n");

      const undo = await prompt(dsh, sessionId, "/undo");
      expect(undo.stopReason).toBe("end_turn");
      expect(asked).toHaveLength(1);
      expect(JSON.stringify(asked[0]?.toolCall)).toContain("a.txt");
      expect(asked[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
      expect(readFileSync(join(dsh.cwd, "a.txt"), "utf8")).toBe("by the user\n");
      expect(readFileSync(join(dsh.cwd, "notes.md"), "utf8")).toBe("draft\n");
      expect(undo.reply).toContain("kept (changed outside dsh) a.txt");
      expect(undo.reply).toContain("restored   notes.md");
      expect(lastText(dsh, sessionId)).toContain("Undid the last turn");
      expect(dsh.problems).toEqual([]);
    },
  );
});

describe("/rewind", () => {
  sandboxTest(
    "/rewind 2 restores the files and the next request's history, and survives a reload and --resume",
    async () => {
      await using model = await startModelServer();
      await using dsh = await spawnAcp({ baseUrl: model.url });
      await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      project(dsh.cwd);
      const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
      model.script(
        textTurn("first answer"),
        toolTurn([{ id: "w1", name: "write_file", args: { path: "second.txt", content: "2\n" } }]),
        textTurn("second answer"),
        toolTurn([{ id: "w2", name: "write_file", args: { path: "a.txt", content: "third\n" } }]),
        textTurn("third answer"),
        textTurn("fourth answer"),
      );
      await prompt(dsh, sessionId, "one");
      await prompt(dsh, sessionId, "two");
      await prompt(dsh, sessionId, "three");
      expect(readFileSync(join(dsh.cwd, "a.txt"), "utf8")).toBe("third\n");

      const rewind = await prompt(dsh, sessionId, "/rewind 2");
      expect(rewind.reply).toContain('continues from before "two"');
      expect(rewind.reply).toContain("removed    second.txt");
      expect(rewind.reply).toContain("restored   a.txt");
      expect(existsSync(join(dsh.cwd, "second.txt"))).toBe(false);
      expect(readFileSync(join(dsh.cwd, "a.txt"), "utf8")).toBe("alpha\n");
      const sent = model.requests.length;
      await prompt(dsh, sessionId, "four");
      expect(userTexts(model, sent)).toEqual(["one", "four"]);
      expect((await dsh.closeStdin()).code).toBe(0);

      // The log keeps every turn; a reload sees the rewound conversation.
      const log = readFileSync(join(dsh.home, "sessions", `${sessionId}.jsonl`), "utf8");
      expect(log).toContain('"three"');
      expect(log).toContain('"type":"rewind"');
      await using again = await spawnAcp({ baseUrl: model.url, env: { DSH_HOME: dsh.home } });
      await again.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      await again.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
      const replayed = again.updates
        .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === "user_message_chunk")
        .map((n) => (n.update as { content: { text?: string } }).content.text);
      expect(replayed).toEqual(["one", "four"]);
      model.script(textTurn("fifth answer"));
      const next = model.requests.length;
      await again.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "five" }] });
      expect(userTexts(model, next)).toEqual(["one", "four", "five"]);
      expect((await again.closeStdin()).code).toBe(0);

      // `dsh --resume` reads the same conversation.
      model.script(textTurn("sixth answer"));
      const resumed = model.requests.length;
      const root = dirname(dsh.cwd);
      // Not spawnSync: the model server answers from this process.
      const exec = Bun.spawn([await ensureBinary(), "exec", "--resume", sessionId, "six"], {
        cwd: dsh.cwd,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          DSH_SANDBOX: TEST_SANDBOX,
          HOME: join(root, "user"),
          DSH_HOME: dsh.home,
          DSH_CONFIG: join(root, "config.toml"),
          DSH_BASE_URL: model.url,
          DSH_API_KEY: "test-key",
        },
      });
      expect(await exec.exited).toBe(0);
      expect(userTexts(model, resumed)).toEqual(["one", "four", "five", "six"]);
      expect([...dsh.problems, ...again.problems]).toEqual([]);
    },
  );
});
