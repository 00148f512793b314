import { describe, expect, test } from "bun:test";
import { createTerminalTextSanitizer, terminalText } from "../../src/render/terminal-text.ts";

describe("text for the terminal surfaces", () => {
  test("OSC clipboard and title writes, CSI clears, C1 controls and BEL are removed; newline and tab kept", () => {
    const hostile =
      "a\u001b]52;c;aGVsbG8=\u0007b\u001b]0;title\u001b\\c\u001b[2J\u001b[Hd\u009b31me\u0007\tf\n";
    expect(terminalText(hostile)).toBe("abcde\tf\n");
  });

  test("a carriage return becomes a line break, so nothing can be drawn over", () => {
    expect(terminalText("rm -rf ~\rls\r\nok")).toBe("rm -rf ~\nls\nok");
  });

  test("streamed: a sequence or CRLF cut between chunks is held back, never shown half", () => {
    const stream = createTerminalTextSanitizer();
    const shown = [
      stream.push("one\u001b]0;ti"),
      stream.push("tle\u0007two\r"),
      stream.push("\nthree\u001b["),
      stream.push("2Jfour"),
      stream.end(),
    ];
    expect(shown).toEqual(["one", "two", "\nthree", "four", ""]);
    expect(shown.join("")).not.toContain("\u001b");
  });
});
