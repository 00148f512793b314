import { describe, expect, test } from "bun:test";
import { type Key, type KeyName, createKeyReader } from "../../src/cli/keys.ts";

describe("terminal keys", () => {
  test("a bracketed paste is one piece with its newlines, even split across reads", () => {
    const reader = createKeyReader();
    const keys = [
      ...reader.push("ab\u001b[200~line 1\r\nline"),
      ...reader.push(" 2\rline 3\u001b[20"),
      ...reader.push("1~\r"),
    ];
    expect(keys).toEqual([
      { type: "text", text: "ab" },
      { type: "paste", text: "line 1\nline 2\nline 3" },
      { type: "key", name: "enter" },
    ]);
  });

  test("an escape sequence cut between reads is held until complete; unknown ones are dropped", () => {
    const reader = createKeyReader();
    expect(reader.push("x\u001b[")).toEqual([{ type: "text", text: "x" }]);
    expect(reader.push("Dy\u001b[99~z")).toEqual([
      { type: "key", name: "left" },
      { type: "text", text: "y" },
      { type: "text", text: "z" },
    ]);
  });

  test("Alt-Enter is a newline; Ctrl-C, Ctrl-D and the editing controls are keys, never text", () => {
    const reader = createKeyReader();
    const names: readonly KeyName[] = [
      "newline",
      "interrupt",
      "eof",
      "kill-line-start",
      "kill-word",
      "backspace",
      "home",
      "end",
    ];
    expect(reader.push("\u001b\r\u0003\u0004\u0015\u0017\u007f\u0001\u0005\u0007")).toEqual(
      names.map((name): Key => ({ type: "key", name })),
    );
  });
});

test("a paste that carries escape sequences is inserted without them", () => {
  const reader = createKeyReader();
  expect(reader.push("\u001b[200~copied\u001b]52;c;aGk=\u0007 text\u001b[2J\u001b[201~")).toEqual([
    { type: "paste", text: "copied text" },
  ]);
});
