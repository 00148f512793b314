import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorCode } from "../src/error-code.ts";
import { isWithin, realpathOr, realpathOrUndefined, relativeInside } from "../src/paths.ts";

function tempDir(): { path: string } & Disposable {
  const path = realpathSync(mkdtempSync(join(tmpdir(), "dsh-paths-")));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

describe("path containment", () => {
  test.each([
    ["/src/app", "/src/app", true, ""],
    ["/src/app", "/src/app/a/b.ts", true, "a/b.ts"],
    ["/src/app", "/src/app/..data", true, "..data"],
    ["/src/app", "/src/app-evil", false, undefined],
    ["/src/app", "/src", false, undefined],
    ["/src/app", "/src/app/../other", false, undefined],
    ["/", "/etc/passwd", true, "etc/passwd"],
  ])("%s holds %s: %p", (root, target, within, rel) => {
    expect([isWithin(root, target), relativeInside(root, target)]).toEqual([within, rel]);
  });
});

describe("real paths", () => {
  test("a symlink resolves; a missing path is kept by realpathOr and undefined otherwise", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "real"));
    symlinkSync(join(dir.path, "real"), join(dir.path, "link"));
    const missing = join(dir.path, "missing");
    expect([
      realpathOr(join(dir.path, "link")),
      realpathOrUndefined(join(dir.path, "link")),
      realpathOr(missing),
      realpathOrUndefined(missing),
    ]).toEqual([join(dir.path, "real"), join(dir.path, "real"), missing, undefined]);
  });
});

describe("errorCode", () => {
  test("reads the string code of a system error and nothing else", () => {
    using dir = tempDir();
    let caught: unknown;
    try {
      realpathSync(join(dir.path, "missing"));
    } catch (error) {
      caught = error;
    }
    expect([
      errorCode(caught),
      errorCode(new Error("plain")),
      errorCode({ code: 7 }),
      errorCode("ENOENT"),
      errorCode(null),
    ]).toEqual(["ENOENT", undefined, undefined, undefined, undefined]);
  });
});
