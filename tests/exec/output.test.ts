import { describe, expect, test } from "bun:test";
import { createOutputCollector } from "../../src/exec/output.ts";
import {
  collapseCarriageReturns,
  createStreamSanitizer,
  sanitizeOutput,
  stripControls,
} from "../../src/render/terminal-text.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const limits = { headBytes: 16, tailBytes: 16, liveBytes: 1024 };

describe("sanitising output", () => {
  test("strips ANSI colours, cursor moves, OSC titles and NULs, keeps tabs and newlines", () => {
    const raw = "\u001b[1;31mred\u001b[0m\tok\u0000\n\u001b]0;title\u0007done\u001b[2K\u001b(B\n";
    expect(stripControls(raw)).toBe("red\tok\ndone\n");
  });

  test("keeps what a terminal shows last on a carriage-return progress line", () => {
    expect(collapseCarriageReturns("10%\r50%\r100%\nnext\r\n")).toBe("100%\nnext\n");
    expect(sanitizeOutput("a\r\nb")).toBe("a\nb");
  });

  test("a streamed escape cut between chunks is held back, not shown half", () => {
    const stream = createStreamSanitizer();
    const shown = [stream.push("ab\u001b[3"), stream.push("1mcd\n"), stream.end()];
    expect(shown).toEqual(["ab", "cd\n", ""]);
  });

  test("streamed progress lines become separate lines without blank ones", () => {
    const stream = createStreamSanitizer();
    const shown = [stream.push("10%\r"), stream.push("\r50%\r"), stream.push("done\n")].join("");
    expect(shown).toBe("10%\n50%\ndone\n");
  });
});

describe("the output collector", () => {
  test("keeps everything below the cap", () => {
    const collector = createOutputCollector(limits);
    collector.push(bytes("hello "));
    collector.push(bytes("world"));
    expect(collector.finish()).toEqual({ text: "hello world", droppedBytes: 0 });
  });

  test("keeps head and tail around a marker counting the dropped bytes", () => {
    const collector = createOutputCollector(limits);
    collector.push(bytes("H".repeat(16)));
    for (let i = 0; i < 10; i++) collector.push(bytes("m".repeat(100)));
    collector.push(bytes("T".repeat(16)));
    expect(collector.finish()).toEqual({
      text: `${"H".repeat(16)}\n[... 1000 bytes omitted ...]\n${"T".repeat(16)}`,
      droppedBytes: 1000,
    });
  });

  test("never cuts a UTF-8 character into a replacement character at the cut", () => {
    const collector = createOutputCollector({ headBytes: 5, tailBytes: 5, liveBytes: 0 });
    collector.push(bytes(`ab${"é".repeat(20)}cd`));
    expect(collector.finish()).toEqual({
      text: "abé\n[... 36 bytes omitted ...]\nécd",
      droppedBytes: 36,
    });
  });

  test("live text stops at the live limit with one notice, the final text stays whole", () => {
    const live: string[] = [];
    const collector = createOutputCollector({ headBytes: 64, tailBytes: 64, liveBytes: 8 }, (t) =>
      live.push(t),
    );
    collector.push(bytes("0123456789abcdef"));
    collector.push(bytes("more"));
    expect(live.join("")).toBe(
      "01234567\n[... live output stops here; the end of the output follows when the command ends ...]\n",
    );
    expect(collector.finish().text).toBe("0123456789abcdefmore");
  });

  test("a listener that throws does not stop the collection", () => {
    const collector = createOutputCollector(limits, () => {
      throw new Error("listener bug");
    });
    collector.push(bytes("still here"));
    expect(collector.finish().text).toBe("still here");
  });
});
