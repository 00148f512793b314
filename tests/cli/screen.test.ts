import { expect, test } from "bun:test";
import { type LiveInput, createScreen } from "../../src/cli/screen.ts";
import { createStyle } from "../../src/cli/style.ts";
import { createVirtualTerminal } from "../support/vt.ts";

/** A screen drawing on a virtual terminal (with the tty's LF to CRLF, as a real one has). */
function screenOn(columns: number, rows = 24) {
  const vt = createVirtualTerminal(columns, rows);
  let raw = "";
  let now = 0;
  const sink = {
    write: (text: string) => {
      raw += text;
      vt.write(text.replace(/\r?\n/g, "\r\n"));
    },
  };
  const screen = createScreen({
    answer: sink,
    activity: sink,
    answerOnTerminal: true,
    status: { style: createStyle(false), columns: () => columns, rows: () => rows },
    now: () => now,
  });
  return {
    screen,
    vt,
    raw: () => raw,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const input = (text: string): LiveInput => ({
  view: () => ({ lines: [`› ${text}`], cursor: { line: 0, index: 2 + text.length } }),
});

test("the status line stays under the output with its elapsed time, and goes when the turn ends", () => {
  const { screen, vt, advance } = screenOn(80);
  screen.status("thinking");
  advance(3_000);
  screen.activity.write("▸ ls\n");
  expect(vt.lines()).toEqual(["▸ ls", "⠋ thinking · 3s"]);
  screen.status(undefined);
  expect(vt.lines()).toEqual(["▸ ls"]);
  screen.close();
});

test("a line shows as it streams, above the status line, before its newline comes", () => {
  const { screen, vt } = screenOn(80);
  screen.status("writing");
  screen.answer.write("The first half");
  expect(vt.lines()).toEqual(["The first half", "⠋ writing · 0s"]);
  screen.answer.write(" and the rest.\nNext");
  expect(vt.lines()).toEqual(["The first half and the rest.", "Next", "⠋ writing · 0s"]);
  screen.close();
  expect(vt.lines()).toEqual(["The first half and the rest.", "Next"]);
});

test("a long label gives way so the line fits the terminal; the clock stays", () => {
  const { screen, vt } = screenOn(30);
  screen.status(`running ${"x".repeat(100)}`);
  const [line = ""] = vt.lines();
  expect(Bun.stringWidth(line)).toBeLessThan(30);
  expect(line).toEndWith("… · 0s");
  screen.close();
});

test("the input stays at the bottom under the status line, the cursor in it; output goes above", () => {
  const { screen, vt } = screenOn(40);
  screen.input(input("typing"));
  screen.status("thinking");
  screen.activity.write("▸ one\n");
  screen.activity.write("▸ two\n");
  expect(vt.lines()).toEqual(["▸ one", "▸ two", "⠋ thinking · 0s", "› typing"]);
  expect(vt.cursor).toEqual({ row: 3, col: 8 });
  screen.suspend();
  expect(vt.lines()).toEqual(["▸ one", "▸ two", "› typing"]);
  screen.close();
});

test("a preview is replaced as it grows and removed when its block is written for good", () => {
  const { screen, vt } = screenOn(40);
  screen.input(input(""));
  screen.preview("draft one\n");
  screen.preview("draft one\ndraft two\n");
  expect(vt.lines()).toEqual(["draft one", "draft two", "›"]);
  screen.preview("");
  screen.answer.write("final\n");
  expect(vt.lines()).toEqual(["final", "›"]);
  screen.close();
});

test("rows that wrap, wide characters included, are erased whole", () => {
  const { screen, vt } = screenOn(10);
  screen.input(input(""));
  screen.answer.write("aaaaaaaaaaaaaaa");
  screen.answer.write("日本語日本語");
  screen.answer.write("\n");
  expect(vt.lines()).toEqual(["aaaaaaaaaa", "aaaaa日本", "語日本語", "›"]);
  screen.close();
});

test("without a terminal there is no region: writes go straight through", () => {
  let out = "";
  const sink = { write: (text: string) => void (out += text) };
  const screen = createScreen({
    answer: sink,
    activity: sink,
    answerOnTerminal: false,
    now: () => 0,
  });
  screen.status("thinking");
  screen.preview("draft");
  screen.answer.write("partial");
  screen.activity.write(" line\n");
  screen.close();
  expect({ live: screen.live, out }).toEqual({ live: false, out: "partial line\n" });
});
