/**
 * A session's added directories never undo another root's protections: one inside or around
 * another root, in a git directory, or in a directory dsh protects is refused before any
 * command runs there.
 */
import { describe, expect, test } from "bun:test";
import { refuseOverlappingRoots } from "../../src/exec/backend-parts.ts";
import { InvalidInputError } from "../../src/errors.ts";

const refusal = (extras: string[], protectedDirs: string[] = []) => {
  try {
    refuseOverlappingRoots("/p/sub", extras, protectedDirs);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as Error).message;
  }
};

describe("added directories", () => {
  test("around the workspace, inside it, or around or inside each other are refused", () => {
    expect(refusal(["/p"])).toContain("lies inside or around /p/sub");
    expect(refusal(["/p/sub/lib"])).toContain("lies inside or around /p/sub");
    expect(refusal(["/q", "/q/docs"])).toContain("lies inside or around");
  });

  test("in a git directory, or in one dsh protects, are refused", () => {
    expect(refusal(["/q/.git/hooks"])).toContain("in a git directory");
    expect(refusal(["/q/.GIT"])).toContain("in a git directory");
    expect(refusal(["/home/u/.config/dsh/skills"], ["/home/u/.config/dsh"])).toContain(
      "which commands may not write",
    );
  });

  test("side by side with the workspace and each other are fine", () => {
    expect(refusal(["/q", "/p/subway", "/r/docs"], ["/home/u/.config/dsh"])).toBeUndefined();
  });
});
