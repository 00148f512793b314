/**
 * The search's parts: one ignore file's patterns, glob's path matcher, the literal a regex match
 * must contain, and glob's modification times and order.
 */
import { describe, expect, test } from "bun:test";
import { compileIgnoreFile } from "../../src/tools/search/gitignore.ts";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { requiredLiteral } from "../../src/tools/search/file-searcher.ts";
import { createMtimeReader } from "../../src/tools/search/mtime-reader.ts";
import { newestFirst } from "../../src/tools/search/newest-first.ts";
import { pathMatcher } from "../../src/tools/search/name-pattern.ts";

describe("compileIgnoreFile (gitignore(5))", () => {
  const rules = compileIgnoreFile(
    [
      "# a comment",
      "target/",
      "/root.txt",
      "*.log",
      "!keep.log",
      "foo/**/bar",
      "a/*.txt",
      "\\#hash",
      "\\!bang",
      "trailing   ",
      "**/deep",
      "x?z",
      "[ab]c",
      "{brace}",
    ].join("\n"),
  );
  const cases: [string, boolean, ReturnType<typeof rules.test>][] = [
    ["target", true, "ignored"],
    ["target", false, undefined],
    ["src/target", true, "ignored"],
    ["root.txt", false, "ignored"],
    ["src/root.txt", false, undefined],
    ["x.log", false, "ignored"],
    ["d/keep.log", false, "unignored"],
    ["foo/bar", false, "ignored"],
    ["foo/1/2/bar", false, "ignored"],
    ["a/b.txt", false, "ignored"],
    ["x/a/b.txt", false, undefined],
    ["#hash", false, "ignored"],
    ["!bang", false, "ignored"],
    ["trailing", false, "ignored"],
    ["p/q/deep", true, "ignored"],
    ["xyz", false, "ignored"],
    ["x/z", false, undefined],
    ["ac", false, "ignored"],
    ["cc", false, undefined],
    ["{brace}", false, "ignored"],
    ["brace", false, undefined],
    ["# a comment", false, undefined],
  ];
  for (const [path, isDirectory, verdict] of cases) {
    test(`${path}${isDirectory ? "/" : ""}: ${verdict ?? "no rule"}`, () => {
      expect(rules.test(path, isDirectory)).toBe(verdict);
    });
  }
});

describe("pathMatcher", () => {
  const paths = [
    "a.ts",
    "src/a.ts",
    "src/.hidden/a.ts",
    ".a.ts",
    "src/.ts",
    ".ts",
    "ts",
    "src/ts",
    "a.tsx",
    "src/a.ts.bak",
    "a.ts/b",
    "HEAD",
    "x/HEAD",
    "xHEAD",
    "x/yHEAD",
    ".git/HEAD",
    "a/.env",
    ".env",
    "src/deep/er/web-fetch.ts",
    "web-fetch.tsx",
    "a.rs",
  ];
  const patterns = [
    "**/*.ts",
    "**/*ts",
    "**/HEAD",
    "**/.env",
    "**/web-fetch.ts",
    "**/*",
    "**/.*",
    "*.ts",
    "src/**/*.ts",
    "**/*.{ts,rs}",
    "**/a?ts",
    "**/[a]*.ts",
    "**/\\*.ts",
  ];
  test("decides every path as Bun's glob does", () => {
    for (const pattern of patterns) {
      const glob = new Bun.Glob(pattern);
      const matches = pathMatcher(pattern);
      for (const rel of paths)
        expect([pattern, rel, matches(rel)]).toEqual([pattern, rel, glob.match(rel)]);
    }
  });
});

describe("requiredLiteral", () => {
  const cases: [RegExp, string | undefined][] = [
    [/export function/, "export function"],
    [/zq_never_[0-9]{4}/, "zq_never_"],
    [/function\s+load/, "function"],
    [/foo\.bar/, "foo.bar"],
    [/colou?r_name/, "r_name"],
    [/a|b/, undefined],
    [/(optional)?xy/, undefined],
    [/TODO/i, undefined],
    [/ab/, undefined],
    [/^\s*import .* from$/, "import "],
  ];
  for (const [regex, literal] of cases) {
    test(`${regex}: ${literal === undefined ? "none" : JSON.stringify(literal)}`, () => {
      expect(requiredLiteral(regex)).toBe(literal);
    });
  }
});

describe("createMtimeReader", () => {
  const within = (count: number, missing: ReadonlySet<number>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dsh-mtimes-"));
    const paths = Array.from({ length: count }, (_, i) => {
      const file = path.join(dir, `f${i}`);
      if (!missing.has(i)) {
        fs.writeFileSync(file, "");
        fs.utimesSync(file, 1_000 + i, 1_000 + i);
      }
      return file;
    });
    return { dir, paths };
  };

  for (const count of [3, 1_500]) {
    test(`gives each path's lstat time in order, 0 for one that is not there (${count} paths)`, async () => {
      const missing = new Set([1, count - 1]);
      const { dir, paths } = within(count, missing);
      try {
        const reader = createMtimeReader();
        for (const file of paths) reader.add(file);
        const mtimes = await reader.done(new AbortController().signal);
        expect([...mtimes]).toEqual(
          paths.map((_, i) => (missing.has(i) ? 0 : (1_000 + i) * 1_000)),
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test("a reader let go before its times were asked for leaves the next one whole", async () => {
    const { dir, paths } = within(1_100, new Set());
    try {
      {
        using abandoned = createMtimeReader();
        for (const file of paths) abandoned.add(file);
      }
      const reader = createMtimeReader();
      for (const file of paths) reader.add(file);
      const mtimes = await reader.done(new AbortController().signal);
      expect([...mtimes]).toEqual(paths.map((_, i) => (1_000 + i) * 1_000));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("stops with the signal's reason when cancelled", async () => {
    const { dir, paths } = within(1_100, new Set());
    try {
      const reader = createMtimeReader();
      for (const file of paths) reader.add(file);
      const abort = new AbortController();
      abort.abort(new Error("cancelled"));
      await expect(reader.done(abort.signal)).rejects.toThrow("cancelled");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("newestFirst", () => {
  // Paths in no order; times with many ties (written in the same millisecond), all tied, and
  // each newer than the last (a tree written in walk order).
  const files = Array.from({ length: 3000 }, (_, i) => `/t/${(i * 7919) % 3001}/f${i % 13}.ts`);
  const times = {
    tied: new Float64Array(files.map((_, i) => 1_000 + ((i * 31) % 17))),
    same: new Float64Array(files.length).fill(1_000),
    rising: new Float64Array(files.map((_, i) => 1_000 + i / 7)),
  };
  for (const [kind, mtimes] of Object.entries(times)) {
    const sorted = files
      .map((file, i) => ({ file, mtime: mtimes[i] ?? 0 }))
      .sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : 1))
      .map((entry) => entry.file);
    for (const limit of [0, 1, 200, 2999, 3000, 5000]) {
      test(`gives the first ${limit} of a full sort by time, then by path (${kind} times)`, () => {
        expect(newestFirst(files, mtimes, limit)).toEqual(sorted.slice(0, limit));
      });
    }
  }
});
