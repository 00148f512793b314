/** A write approved after the file changed under it writes nothing, so the user's edit survives. */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ApprovalAnswerer } from "../../src/approval/types.ts";
import { PRESETS } from "../../src/permission/knobs.ts";
import { useFileTools } from "./harness.ts";

const f = useFileTools();

/** Allows, but only after running `meanwhile` (the user editing while the prompt is open). */
function allowAfter(meanwhile: () => void): ApprovalAnswerer {
  return {
    async answer() {
      meanwhile();
      return "allow";
    },
  };
}

describe("a write waiting for approval", () => {
  test("edit_file: a change saved while the prompt was open is kept and nothing is written", async () => {
    f.box.write("notes.txt", "alpha\nbeta\n");
    const file = path.join(f.box.root, "notes.txt");
    const answerers = [allowAfter(() => fs.writeFileSync(file, "alpha\nbeta\nuser line\n"))];
    const { result } = await f.run(
      "edit_file",
      { path: "notes.txt", old_string: "alpha", new_string: "ALPHA" },
      { knobs: PRESETS["read-only"], answerers },
    );
    expect(result).toMatchObject({ isError: true });
    expect(result.output).toContain("changed while waiting for approval");
    expect(fs.readFileSync(file, "utf8")).toBe("alpha\nbeta\nuser line\n");
  });

  test("write_file: a file created while the prompt was open is not replaced", async () => {
    const file = path.join(f.box.root, "new.txt");
    const answerers = [allowAfter(() => fs.writeFileSync(file, "made by the user\n"))];
    const { result } = await f.run(
      "write_file",
      { path: "new.txt", content: "model\n" },
      { knobs: PRESETS["read-only"], answerers },
    );
    expect(result.isError).toBe(true);
    expect(fs.readFileSync(file, "utf8")).toBe("made by the user\n");
  });

  test("an unchanged file is written once approved", async () => {
    f.box.write("same.txt", "one\n");
    const { result } = await f.run(
      "edit_file",
      { path: "same.txt", old_string: "one", new_string: "two" },
      { knobs: PRESETS["read-only"], answerers: [allowAfter(() => {})] },
    );
    expect(result.isError).toBe(false);
    expect(f.box.read("same.txt")).toBe("two\n");
  });
});
