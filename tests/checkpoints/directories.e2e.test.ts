/**
 * More directories through the compiled binary: `additionalDirectories` over ACP and
 * `--add-dir` for `dsh exec`. An added directory is writable in the sandbox and by the file
 * tools (no question asked), its git control files are not, a sibling is not; a bad entry is -32602 naming it; the log keeps
 * the directories, so a reload restores them; `/status` lists them; `/undo` covers them.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { sandboxTest } from "../exec/sandbox-support.ts";
import { rejection } from "../support/acp-fixture.ts";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import { ensureBinary } from "../support/binary.ts";
import { promptFor } from "./acp-turns.ts";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const m = acp.methods.agent.session;

let rig: CliRig;
beforeAll(async () => {
  await ensureBinary();
  rig = await startCliRig("dsh-add-dir");
});
afterAll(async () => {
  await rig[Symbol.asyncDispose]();
});

/** A directory beside the project to add, and a sibling of it that is not added. */
function besides(cwd: string): { extra: string; sibling: string } {
  const extra = join(dirname(cwd), "shared-lib");
  const sibling = join(dirname(cwd), "sibling");
  mkdirSync(extra, { recursive: true });
  mkdirSync(sibling, { recursive: true });
  writeFileSync(join(extra, "lib.txt"), "v1\n");
  // A repository of its own, whose control files stay protected as the cwd's are.
  Bun.spawnSync(["git", "init", "-q", extra], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", HOME: extra },
  });
  return { extra, sibling };
}

async function reply(dsh: AcpProcess, sessionId: string, text: string): Promise<string> {
  return (await promptFor(dsh, sessionId, text)).reply;
}

describe("additionalDirectories", () => {
  sandboxTest(
    "an added directory is writable by commands and file tools, a sibling is not; a reload keeps it",
    async () => {
      await using model = await startModelServer();
      const asked: string[] = [];
      await using dsh = await spawnAcp({
        baseUrl: model.url,
        onPermission: (params) => {
          asked.push(params.toolCall.title ?? "");
          return { outcome: { outcome: "selected", optionId: "reject" } };
        },
      });
      const init = await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      expect(init.agentCapabilities?.sessionCapabilities?.additionalDirectories).toEqual({});
      const { extra, sibling } = besides(dsh.cwd);

      for (const bad of ["relative/dir", join(extra, "missing"), join(extra, "lib.txt")]) {
        const refused = await rejection(
          dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [], additionalDirectories: [bad] }),
        );
        expect(refused.code).toBe(-32602);
        expect(refused.message).toContain(JSON.stringify(bad));
      }

      const { sessionId } = await dsh.agent.request(m.new, {
        cwd: dsh.cwd,
        mcpServers: [],
        additionalDirectories: [extra],
      });
      const gitConfig = readFileSync(join(extra, ".git", "config"), "utf8");
      model.script(
        toolTurn([
          {
            id: "b1",
            name: "bash",
            args: {
              command: `echo cmd > ${extra}/from-command.txt; echo no > ${sibling}/from-command.txt; echo evil > ${extra}/.git/hooks/pre-commit; echo '[core]' >> ${extra}/.git/config; echo done`,
            },
          },
          { id: "w1", name: "write_file", args: { path: `${extra}/lib.txt`, content: "v2\n" } },
        ]),
        textTurn("wrote"),
      );
      await reply(dsh, sessionId, "write in both");
      expect(readFileSync(join(extra, "from-command.txt"), "utf8")).toBe("cmd\n");
      expect(existsSync(join(sibling, "from-command.txt"))).toBe(false);
      expect(existsSync(join(extra, ".git", "hooks", "pre-commit"))).toBe(false);
      expect(readFileSync(join(extra, ".git", "config"), "utf8")).toBe(gitConfig);
      expect(readFileSync(join(extra, "lib.txt"), "utf8")).toBe("v2\n");
      // Inside an added directory the file tools write without asking.
      expect(asked).toEqual([]);
      expect(await reply(dsh, sessionId, "/status")).toContain(`added directories: ${extra}`);
      const listed = await dsh.agent.request(m.list, { cwd: dsh.cwd });
      expect(listed.sessions.map((s) => [s.sessionId, s.additionalDirectories])).toEqual([
        [sessionId, [extra]],
      ]);
      // Checkpoints cover it too.
      const undo = await reply(dsh, sessionId, "/undo");
      expect(undo).toContain(`removed    ${extra}/from-command.txt`);
      expect(readFileSync(join(extra, "lib.txt"), "utf8")).toBe("v1\n");
      // /add-dir widens what commands may write: asked first, and refused here.
      expect(await reply(dsh, sessionId, `/add-dir ${sibling}`)).toContain(
        `${sibling} was not added`,
      );
      expect(asked).toEqual([`Add ${sibling} to this session?`]);
      expect(await reply(dsh, sessionId, "/status")).not.toContain(sibling);
      expect((await dsh.closeStdin()).code).toBe(0);

      // The log keeps it: a load without the list still works there.
      await using again = await spawnAcp({ baseUrl: model.url, env: { DSH_HOME: dsh.home } });
      await again.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      await again.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
      model.script(
        toolTurn([
          { id: "b2", name: "bash", args: { command: `echo again > ${extra}/again.txt` } },
        ]),
        textTurn("again"),
      );
      await reply(again, sessionId, "once more");
      expect(readFileSync(join(extra, "again.txt"), "utf8")).toBe("again\n");
      expect([...dsh.problems, ...again.problems]).toEqual([]);
    },
  );
});

describe("/add-dir", () => {
  sandboxTest(
    "the next request's system prompt names the directory, its AGENTS.md and its skills, as a reopened session's does",
    async () => {
      await using model = await startModelServer();
      const allow = { outcome: { outcome: "selected" as const, optionId: "yes" } };
      await using dsh = await spawnAcp({ baseUrl: model.url, onPermission: () => allow });
      await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      const { extra } = besides(dsh.cwd);
      writeFileSync(join(extra, "AGENTS.md"), "Indent the shared library with tabs.\n");
      const skill = join(extra, ".agents", "skills", "lib-release");
      mkdirSync(skill, { recursive: true });
      writeFileSync(
        join(skill, "SKILL.md"),
        "---\nname: lib-release\ndescription: Release the shared library.\n---\nSteps.\n",
      );
      const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
      const system = (n: number) => {
        const messages = model.requests[n]?.body.messages as { role: string; content: string }[];
        return messages[0]?.role === "system" ? messages[0].content : "";
      };
      model.script(textTurn("one"), textTurn("two"), textTurn("three"));
      await reply(dsh, sessionId, "first");
      const before = system(0);
      expect(before).not.toContain(extra);
      expect(await reply(dsh, sessionId, `/add-dir ${extra}`)).toContain(`Added ${extra}`);
      await reply(dsh, sessionId, "second");
      const after = system(1);
      expect(after).toContain(
        `Also working in (files and commands may change them as in the working directory): ${extra}`,
      );
      expect(after).toContain("Indent the shared library with tabs.");
      expect(after).toContain(
        `lib-release: Release the shared library. (${join(skill, "SKILL.md")})`,
      );
      // Made again at the change only: the next request has the same bytes.
      await reply(dsh, sessionId, "third");
      expect(system(2)).toBe(after);
      // A subagent started now works there too, and reads the same instructions.
      model.script(
        toolTurn([
          { id: "t1", name: "task", args: { description: "look", prompt: "Look around." } },
        ]),
        textTurn("looked"),
        textTurn("done"),
      );
      await reply(dsh, sessionId, "delegate");
      expect(system(4)).toStartWith("You are a subagent of dsh");
      expect(system(4)).toContain(extra);
      expect(system(4)).toContain("Indent the shared library with tabs.");
      expect((await dsh.closeStdin()).code).toBe(0);

      // The same prompt a session opened with the directory has.
      await using again = await spawnAcp({ baseUrl: model.url, env: { DSH_HOME: dsh.home } });
      await again.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
      await again.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
      model.script(textTurn("four"));
      await reply(again, sessionId, "fourth");
      expect(system(6)).toBe(after);
      expect([...dsh.problems, ...again.problems]).toEqual([]);
    },
  );
});

describe("--add-dir", () => {
  sandboxTest("dsh exec --add-dir DIR lets commands write there, and not beside it", async () => {
    const project = rig.project("exec-add-dir");
    const { extra, sibling } = besides(project.cwd);
    rig.server.script(
      toolTurn([
        {
          id: "b1",
          name: "bash",
          args: {
            command: `echo yes > ${extra}/out.txt; echo no > ${sibling}/out.txt; echo ran`,
          },
        },
      ]),
      textTurn("Done."),
    );
    const run = await rig.run(["exec", "--add-dir", extra, "write there"], project);
    expect(run.code).toBe(0);
    expect(readFileSync(join(extra, "out.txt"), "utf8")).toBe("yes\n");
    expect(existsSync(join(sibling, "out.txt"))).toBe(false);
    const missing = await rig.run(["exec", "--add-dir", join(extra, "nope"), "hi"], project);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(JSON.stringify(join(extra, "nope")));
  });

  sandboxTest(
    "git in an added repository stages none of the placeholders dsh stands there",
    async () => {
      // Its own model server: the cases run side by side.
      await using own = await startCliRig("dsh-add-dir-git");
      const project = own.project("exec-add-dir-git");
      const { extra } = besides(project.cwd);
      // The cwd, a repository too, has its own `.envrc`: no placeholder of that name there.
      Bun.spawnSync(["git", "init", "-q", project.cwd], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", HOME: extra },
      });
      writeFileSync(join(project.cwd, ".envrc"), "");
      const stage = (dir: string) =>
        `cd ${dir} && git add -A && git status --porcelain --untracked-files=all`;
      own.server.script(
        toolTurn([
          // The first command makes the placeholders; the next ones find them standing.
          { id: "g1", name: "bash", args: { command: stage(extra) } },
          { id: "g2", name: "bash", args: { command: stage(extra) } },
          { id: "g3", name: "bash", args: { command: stage(project.cwd) } },
          { id: "ls", name: "bash", args: { command: `ls -a ${extra} ${project.cwd}` } },
        ]),
        textTurn("Done."),
      );
      const run = await own.run(["exec", "--add-dir", extra, "stage all"], project);
      expect(run.code).toBe(0);
      const results = toolResults(own);
      // The placeholders stood in both while the commands ran.
      expect(results.ls?.match(/\.npmrc/g)).toHaveLength(2);
      expect(statusLines(results.g1)).toEqual(["A  lib.txt"]);
      expect(statusLines(results.g2)).toEqual(["A  lib.txt"]);
      expect(statusLines(results.g3)).toEqual(["A  .envrc"]);
    },
  );
});

/** The tool results the model got, by call id. */
function toolResults(of: CliRig): Record<string, string> {
  const found: Record<string, string> = {};
  for (const request of of.server.requests) {
    const messages = request.body.messages as {
      role: string;
      tool_call_id?: string;
      content: string;
    }[];
    for (const message of messages) {
      if (message.role === "tool" && message.tool_call_id !== undefined) {
        found[message.tool_call_id] = message.content;
      }
    }
  }
  return found;
}

/** The lines of `git status --porcelain` in a command's result. */
function statusLines(result: string | undefined): string[] {
  return (result ?? "").split("\n").filter((line) => /^[AM?][ AM?] /.test(line));
}
