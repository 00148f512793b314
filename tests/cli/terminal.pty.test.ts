/**
 * The terminal surfaces as a person meets them: the compiled binary under a real
 * pseudo-terminal, keystrokes in, the bytes it draws out. Every wait is for something on the
 * screen or at the model server, never for time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runIf } from "../support/gate.ts";
import { type CliProject, type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { ptySignals, spawnPty } from "../support/pty.ts";
import { CTRL_C, PASTE, TURN_ENDED, chatPty, requestsFromNow } from "../support/pty-chat.ts";

let rig: CliRig;
beforeAll(async () => {
  rig = await startCliRig("dsh-pty");
});
afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

function chat(project: CliProject, args: readonly string[] = [], env: Record<string, string> = {}) {
  return chatPty(rig, project, { args, env });
}

const HOSTILE = "\u001b]52;c;aGVsbG8=\u0007\u001b]0;owned\u0007\u001b[2J";

describe("dsh exec at a terminal", () => {
  test("escape sequences in a model answer never reach the screen raw; the answer is rendered Markdown", async () => {
    const project = rig.project("exec-hostile");
    rig.server.script(
      textTurn(`# Report\n\nAll ${HOSTILE}good: \`npm test\` passes.\n`, {
        reasoning: `checking${HOSTILE} things`,
      }),
    );
    await using pty = spawnPty([rig.binary, "exec", "report"], project);
    expect(await pty.exited).toBe(0);
    await pty.waitFor("passes");
    const screen = pty.output();
    expect(screen).not.toContain("\u001b]");
    expect(screen).not.toContain("\u001b[2J");
    expect(screen).not.toContain("\u0007");
    expect(screen).not.toContain("# Report");
    expect(screen).not.toContain("`npm test`");
    expect(screen).toContain("Report");
  });

  test("with NO_COLOR, nothing it prints is styled, and no sequence but cursor movement is sent", async () => {
    const project = rig.project("exec-no-color");
    writeFileSync(join(project.cwd, "a.txt"), "alpha\n");
    rig.server.script(
      toolTurn([{ id: "r1", name: "read_file", args: { path: "a.txt" } }], {
        reasoning: "read it",
      }),
      textTurn(`# Done\n\nIt says **alpha**.${HOSTILE}\n`),
    );
    await using pty = spawnPty([rig.binary, "exec", "read a.txt"], {
      ...project,
      env: { ...project.env, NO_COLOR: "1" },
    });
    expect(await pty.exited).toBe(0);
    await pty.waitFor("alpha");
    expect(pty.output()).toContain("Read a.txt");
    // What is left once the live region's cursor movements are taken out: plain text.
    const moves = /\u001b\[(?:\d*[ABCDJK]|\?2026[hl])/g;
    expect(pty.output().replace(moves, "")).not.toContain("\u001b");
  });
});

runIf(
  ptySignals,
  test,
  "without util-linux's setsid the terminal is not the program's controlling one, so Ctrl-C sends no signal",
)("dsh exec: Ctrl-C cancels the turn, says how to resume it, and exits 130", async () => {
  const project = rig.project("exec-ctrl-c");
  const requests = requestsFromNow(rig);
  rig.server.script({
    respond: { stream: [{ text: "partial" }, { until: new Promise(() => {}) }] },
  });
  await using pty = spawnPty([rig.binary, "exec", "go"], project);
  await requests.received(0);
  await pty.waitFor("session ");
  pty.type(CTRL_C);
  await requests.aborted(0);
  expect(await pty.exited).toBe(130);
  await pty.waitFor("resume it with: dsh exec --resume ");
  expect(pty.output()).toContain("dsh: cancelled");
});

describe("dsh chat at a terminal", () => {
  test("a pasted block of 3 lines is one message; a trailing \\ and Alt-Enter add lines", async () => {
    const project = rig.project("paste");
    const requests = requestsFromNow(rig);
    rig.server.script(textTurn("got the paste"), textTurn("got the lines"));
    await using pty = chat(project);
    await pty.waitFor("› ");
    pty.type(`${PASTE("one\ntwo\r\nthree")}\r`);
    expect(await requests.lastUserMessage(0)).toBe("one\ntwo\nthree");
    await pty.waitFor("got the paste");
    const mark = pty.output().length;
    pty.type("first \\\r");
    pty.type("second\u001b\rthird\r");
    expect(await requests.lastUserMessage(1)).toBe("first \nsecond\nthird");
    await pty.waitFor("got the lines", mark);
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("a paste taller than the screen is sent whole; the input shows its last lines under a count of the rest", async () => {
    const project = rig.project("tall-paste");
    const requests = requestsFromNow(rig);
    const pasted = Array.from({ length: 100 }, (_, i) => `log line ${i + 1}`).join("\n");
    rig.server.script(textTurn("read all of it"));
    await using pty = chat(project);
    await pty.waitFor("› ");
    pty.type(PASTE(pasted));
    await pty.waitFor("· log line 100");
    expect(pty.output()).toMatch(/… \d+ more lines above/);
    pty.type("\r");
    expect(await requests.lastUserMessage(0)).toBe(pasted);
    await pty.waitFor("read all of it");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("Ctrl-C clears typed text first, exits only on a second press at an empty prompt; history is kept", async () => {
    const project = rig.project("ctrl-c-prompt");
    const requests = requestsFromNow(rig);
    rig.server.script(textTurn("hello back"));
    {
      await using pty = chat(project);
      await pty.waitFor("› ");
      pty.type("throw this away");
      await pty.waitFor("away");
      pty.type(CTRL_C);
      pty.type("hello\r");
      expect(await requests.lastUserMessage(0)).toBe("hello");
      await pty.waitFor("hello back");
      await pty.waitFor(TURN_ENDED);
      const mark = pty.output().length;
      pty.type(CTRL_C);
      await pty.waitFor("Ctrl-C again to exit", mark);
      pty.type(CTRL_C);
      expect(await pty.exited).toBe(0);
    }
    // A new chat recalls the earlier message with Up.
    rig.server.script(textTurn("again"));
    await using pty = chat(project);
    await pty.waitFor("› ");
    pty.type("\u001b[A\r");
    expect(await requests.lastUserMessage(1)).toBe("hello");
    await pty.waitFor("again");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("a running command's output shows before it ends, and Ctrl-C mid-turn cancels the turn", async () => {
    const project = rig.project("live");
    const requests = requestsFromNow(rig);
    const flag = join(project.cwd, "go.flag");
    const command = `echo started-now; while [ ! -e ${flag} ]; do sleep 0.02; done; echo finished-now`;
    rig.server.script(
      toolTurn([{ id: "b1", name: "bash", args: { command } }]),
      textTurn("ran it"),
      { respond: { stream: [{ text: "working on it" }, { until: new Promise(() => {}) }] } },
      textTurn("still here"),
    );
    await using pty = chat(project, ["--permission", "danger-full-access"]);
    await pty.waitFor("› ");
    pty.type("run it\r");
    await pty.waitFor("│ started-now");
    expect(pty.output()).not.toContain("│ finished-now");
    expect(pty.output()).toMatch(/running echo started-now.*… · \d+s/);
    writeFileSync(flag, "");
    await pty.waitFor("│ finished-now");
    await pty.waitFor("ran it");

    pty.type("a long one\r");
    await requests.received(2);
    const mark = pty.output().length;
    pty.type(CTRL_C);
    await requests.aborted(2);
    await pty.waitFor("dsh: cancelled", mark);
    pty.type("still there?\r");
    await pty.waitFor("still here");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("Ctrl-C at an approval cancels the turn, and nothing is written", async () => {
    const project = rig.project("approval-cancel");
    const outside = join(project.base, "outside.txt");
    rig.server.script(
      toolTurn([{ id: "w1", name: "write_file", args: { path: outside, content: "no\n" } }]),
    );
    const before = rig.server.requests.length;
    await using pty = chat(project);
    await pty.waitFor("› ");
    pty.type("write outside\r");
    await pty.waitFor("Allow? [y/a/N]");
    pty.type(CTRL_C);
    await pty.waitFor("dsh: cancelled");
    expect(existsSync(outside)).toBe(false);
    // The turn ended there: the model was not asked again.
    expect(rig.server.requests.length).toBe(before + 1);
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("an edit shows its diff", async () => {
    const project = rig.project("diff");
    writeFileSync(join(project.cwd, "a.ts"), "const a = 1;\nconst b = 2;\n");
    rig.server.script(
      toolTurn([
        {
          id: "e1",
          name: "edit_file",
          args: { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 3;" },
        },
      ]),
      textTurn("changed b"),
    );
    await using pty = chat(project);
    await pty.waitFor("› ");
    pty.type("change b\r");
    await pty.waitFor("changed b");
    const screen = pty.output();
    expect(screen).toContain("@@ line 2");
    expect(screen).toContain("- const b = 2;");
    expect(screen).toContain("+ const b = 3;");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("--resume and --continue show the last exchanges before the prompt", async () => {
    const project = rig.project("resume");
    rig.server.script(textTurn("the answer was 42"));
    const first = await rig.run(["exec", "what was the answer?"], project);
    const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
    for (const args of [["--resume", id], ["-c"]]) {
      await using pty = chat(project, args);
      await pty.waitFor("› ");
      expect(pty.output()).toContain("› what was the answer?");
      expect(pty.output()).toContain("the answer was 42");
      pty.type("\u0004");
      expect(await pty.exited).toBe(0);
    }
  });
});
