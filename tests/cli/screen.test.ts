import { expect, test } from "bun:test";
import { createScreen } from "../../src/cli/screen.ts";
import { createStyle } from "../../src/cli/style.ts";

function screenOver(columns: number) {
  let out = "";
  let now = 0;
  const screen = createScreen({
    answer: { write: (text) => void (out += text) },
    activity: { write: (text) => void (out += text) },
    answerOnTerminal: true,
    status: { style: createStyle(false), columns: () => columns },
    now: () => now,
  });
  return {
    screen,
    output: () => out,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test("the status line is cleared before output and drawn again under it, with its elapsed time", () => {
  const { screen, output, advance } = screenOver(80);
  screen.status("thinking");
  advance(3_000);
  screen.activity.write("▸ ls\n");
  screen.close();
  expect(output()).toBe(
    "⠋ thinking · 0s\r               \r▸ ls\n⠋ thinking · 3s\r               \r",
  );
  expect(output()).not.toContain("\u001b");
});

test("a long label gives way so the line fits the terminal; the clock stays", () => {
  const { screen, output } = screenOver(30);
  screen.status(`running ${"x".repeat(100)}`);
  const drawn = output();
  expect(Bun.stringWidth(drawn)).toBeLessThan(30);
  expect(drawn).toEndWith("… · 0s");
  screen.close();
});

test("mid-line output hides the status until the line ends; suspended, it is not drawn", () => {
  const { screen, output } = screenOver(80);
  screen.status("writing");
  const first = output().length;
  screen.answer.write("partial");
  expect(output().slice(first)).toBe("\r              \rpartial");
  screen.suspend();
  screen.answer.write(" line\n");
  expect(output().endsWith("partial line\n")).toBe(true);
  screen.close();
});
