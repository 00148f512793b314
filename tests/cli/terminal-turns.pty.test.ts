/**
 * A turn at the terminal as a person lives it: keys while it runs (Esc, Ctrl-C, typing ahead,
 * queuing), and what the screen shows while the model streams or goes quiet. The compiled
 * binary under a real pseudo-terminal; every wait is for the screen or the model server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { CTRL_C, ESC, TURN_ENDED, chatPty, requestsFromNow, shown } from "../support/pty-chat.ts";

let rig: CliRig;
beforeAll(async () => {
  rig = await startCliRig("dsh-pty-turns");
});
afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const never = () => new Promise<never>(() => {});
/** A turn that streams `text`, then waits until `release` settles, then ends with `rest`. */
function pausedTurn(text: string, release: Promise<unknown>, rest = "") {
  return {
    respond: {
      stream: [
        { text },
        { until: release },
        ...(rest === "" ? [] : [{ text: rest }]),
        { finish: "stop" as const },
        { usage: { prompt: 10, completion: 5 } },
        { done: true as const },
      ],
    },
  };
}
const lastRow = (rows: string[]) => rows.at(-1) ?? "";

describe("Esc", () => {
  test("Esc then Ctrl-C during a turn cancels it within a second", async () => {
    const project = rig.project("esc-ctrl-c");
    const requests = requestsFromNow(rig);
    rig.server.script({ respond: { stream: [{ text: "working" }, { until: never() }] } });
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("go\r");
    await requests.received(0);
    await pty.waitFor("working");
    const pressed = performance.now();
    pty.type(ESC);
    pty.type(CTRL_C);
    await requests.aborted(0);
    expect(performance.now() - pressed).toBeLessThan(1_000);
    await pty.waitFor("dsh: cancelled");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("Esc alone cancels a turn; a letter and Enter typed after it are keys of their own", async () => {
    const project = rig.project("esc-alone");
    const requests = requestsFromNow(rig);
    rig.server.script(
      { respond: { stream: [{ text: "working" }, { until: never() }] } },
      textTurn("got it"),
    );
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("go\r");
    await requests.received(0);
    pty.type("draft");
    await pty.waitForScreen((rows) => lastRow(rows) === "› draft", "the typed draft");
    pty.type(ESC);
    await requests.aborted(0);
    await pty.waitFor("dsh: cancelled");
    // Before, ESC waited for a following byte forever: this "s" was lost and Enter made a line.
    pty.type("s");
    await pty.waitForScreen((rows) => lastRow(rows) === "› drafts", "the letter after Esc");
    pty.type("\r");
    expect(await requests.lastUserMessage(1)).toBe("drafts");
    await pty.waitFor("got it");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("Esc at an approval cancels the turn, like Ctrl-C, and nothing is written", async () => {
    const project = rig.project("esc-approval");
    const outside = join(project.base, "outside.txt");
    const requests = requestsFromNow(rig);
    rig.server.script(
      toolTurn([{ id: "w1", name: "write_file", args: { path: outside, content: "no\n" } }]),
    );
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("write outside\r");
    await pty.waitFor("Allow? [y/a/N]");
    pty.type(ESC);
    await pty.waitFor("dsh: cancelled");
    expect(existsSync(outside)).toBe(false);
    await requests.received(0);
    expect(rig.server.pending()).toBe(0);
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("Esc at a question of the model cancels the turn", async () => {
    const project = rig.project("esc-question");
    rig.server.script(
      toolTurn([
        {
          id: "q1",
          name: "ask_user_question",
          args: {
            questions: [{ question: "Which one?", options: [{ label: "A" }, { label: "B" }] }],
          },
        },
      ]),
    );
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("ask me\r");
    await pty.waitFor("Which one?");
    await pty.waitFor("A number, or type your own answer");
    pty.type(ESC);
    await pty.waitFor("dsh: cancelled");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });
});

describe("streaming", () => {
  test("a streamed paragraph's first line is on screen before its last chunk arrives", async () => {
    const project = rig.project("stream-paragraph");
    const release = Promise.withResolvers<void>();
    const start = `${"A paragraph that starts here and runs on ".repeat(3)}past the edge`;
    rig.server.script(pausedTurn(start, release.promise, " and ends here.\n\nNext block."));
    await using pty = chatPty(rig, project, { cols: 80 });
    await pty.waitFor("› ");
    pty.type("tell me\r");
    // The stream waits before its last chunk: what came is on screen, above the status line.
    await pty.waitForScreen(
      (rows) => rows.some((row) => row.startsWith("A paragraph that starts here and runs on")),
      "the paragraph's first line",
    );
    expect(shown(pty)).toMatch(/past the edge\n⠋|past the edge\n\S writing · \d+s/);
    release.resolve();
    await pty.waitFor(TURN_ENDED);
    expect(pty.transcript().join("\n")).toContain("Next block.");
    expect(pty.transcript().join(" ")).toContain("past the edge and ends here.");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("a code block streams line by line", async () => {
    const project = rig.project("stream-code");
    const release = Promise.withResolvers<void>();
    rig.server.script(
      pausedTurn("Here:\n\n```ts\nconst first = 1;\n", release.promise, "const second = 2;\n```\n"),
    );
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("code\r");
    await pty.waitForScreen(
      (rows) => rows.some((row) => row.endsWith("const first = 1;")),
      "the first code line",
    );
    expect(shown(pty)).not.toContain("const second");
    release.resolve();
    await pty.waitFor(TURN_ENDED);
    const transcript = pty.transcript();
    expect(transcript.filter((row) => row.includes("const first = 1;"))).toHaveLength(1);
    expect(transcript.filter((row) => row.includes("const second = 2;"))).toHaveLength(1);
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("while the reasoning pauses, the status line shows and its clock runs", async () => {
    const project = rig.project("quiet-reasoning");
    const requests = requestsFromNow(rig);
    rig.server.script({
      respond: { stream: [{ reasoning: "Let me think about" }, { until: never() }] },
    });
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("think\r");
    await requests.received(0);
    // Mid-line reasoning used to hide the status line until the line ended.
    await pty.waitForScreen(
      (rows) =>
        rows.some((row) => row.includes("Let me think about")) &&
        rows.some((row) => /thinking · [1-9]\d*s$/.test(row)),
      "the reasoning with a running clock under it",
    );
    pty.type(CTRL_C);
    await pty.waitFor("dsh: cancelled");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });
});

describe("typing during a turn", () => {
  test("the prompt stays visible and editable; Enter queues the message, sent when the turn ends", async () => {
    const project = rig.project("queue");
    const requests = requestsFromNow(rig);
    const release = Promise.withResolvers<void>();
    rig.server.script(pausedTurn("first answer", release.promise), textTurn("second answer"));
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("go\r");
    await requests.received(0);
    pty.type("next onx");
    pty.type("\u007f");
    pty.type("e");
    await pty.waitForScreen((rows) => lastRow(rows) === "› next one", "the edited line");
    pty.type("\r");
    await pty.waitForScreen(
      (rows) => rows.some((row) => row.trim() === "queued: next one") && lastRow(rows) === "›",
      "the queued message",
    );
    expect(rig.server.requests.length).toBe(requests.base + 1);
    release.resolve();
    expect(await requests.lastUserMessage(1)).toBe("next one");
    await pty.waitFor("second answer");
    await pty.waitForScreen(
      (rows) => !rows.some((row) => row.includes("queued:")),
      "the queue emptied",
    );
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });

  test("Esc with a queued message cancels the turn and puts the message back, unsent", async () => {
    const project = rig.project("queue-esc");
    const requests = requestsFromNow(rig);
    rig.server.script(
      { respond: { stream: [{ text: "working" }, { until: never() }] } },
      textTurn("done later"),
    );
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("go\r");
    await requests.received(0);
    pty.type("later\r");
    await pty.waitForScreen((rows) => rows.some((row) => row.trim() === "queued: later"), "queued");
    pty.type(ESC);
    await requests.aborted(0);
    await pty.waitFor("the queued message was not sent: back in the prompt, Enter sends");
    await pty.waitForScreen(
      (rows) => lastRow(rows) === "› later",
      "the message back in the prompt",
    );
    pty.type("\r");
    expect(await requests.lastUserMessage(1)).toBe("later");
    await pty.waitFor("done later");
    pty.type("\u0004");
    expect(await pty.exited).toBe(0);
  });
});

test("a file written by a command during a turn is there when the queued message is sent", async () => {
  // The queue waits for the whole turn, tools included, not just for the model's text.
  const project = rig.project("queue-tools");
  const requests = requestsFromNow(rig);
  const flag = join(project.cwd, "go.flag");
  const command = `while [ ! -e ${flag} ]; do sleep 0.02; done; echo made > made.txt`;
  rig.server.script(
    toolTurn([{ id: "b1", name: "bash", args: { command } }]),
    textTurn("ran"),
    textTurn("read it"),
  );
  await using pty = chatPty(rig, project, { args: ["--permission", "danger-full-access"] });
  await pty.waitFor("› ");
  pty.type("run\r");
  await pty.waitFor("running");
  pty.type("is it there?\r");
  await pty.waitForScreen(
    (rows) => rows.some((row) => row.includes("queued: is it there?")),
    "queued",
  );
  writeFileSync(flag, "");
  expect(await requests.lastUserMessage(2)).toBe("is it there?");
  expect(existsSync(join(project.cwd, "made.txt"))).toBe(true);
  await pty.waitFor("read it");
  pty.type("\u0004");
  expect(await pty.exited).toBe(0);
});
