import { expect, test } from "bun:test";
import { FileSystemError, describeFileError } from "../../src/file-safety/errors.ts";
import { useFileTools } from "../tools/harness.ts";

const fx = useFileTools();

test("a system error becomes a one-line reason naming the file, never an internal path", () => {
  const raw = Object.assign(
    new Error("EACCES: permission denied, open '/proc/self/fd/7/.dsh-1.tmp'"),
    {
      code: "EACCES",
    },
  );
  const described = describeFileError(raw, "write", "/r/a.txt");
  expect(described).toBeInstanceOf(FileSystemError);
  expect(described).toMatchObject({
    code: "file_system",
    message: "cannot write /r/a.txt: permission denied (EACCES)",
  });
});

test("errors that are not system errors pass through unchanged", () => {
  const bug = new TypeError("boom");
  expect(describeFileError(bug, "read", "/r/a.txt")).toBe(bug);
  const unknown = Object.assign(new Error("x"), { code: "EWHATEVER" });
  expect(describeFileError(unknown, "read", "/r")).toBe(unknown);
});

test("a file whose name is as long as the file system allows can be written", async () => {
  const name = `${"n".repeat(251)}.txt`;
  const call = await fx.run("write_file", { path: name, content: "ok" });
  expect(call.result.output).toBe(`Created ${name} (1 line)`);
  expect(fx.box.read(name)).toBe("ok");
});
