import { describe, expect, test } from "bun:test";
import type { MarkdownFile } from "../../src/front-matter/index.ts";
import { skillOf } from "../../src/skills/skill.ts";

function file(name: string, data: Record<string, unknown>, hasFrontMatter = true): MarkdownFile {
  return {
    name,
    path: `/p/.agents/skills/${name}/SKILL.md`,
    place: { dir: "/p/.agents/skills", within: "/p", scope: "project" },
    data,
    body: "\nSteps.\n",
    hasFrontMatter,
  };
}

const reason = (f: MarkdownFile) => {
  const read = skillOf(f);
  return read.ok ? "ok" : read.reason;
};

describe("Agent Skills front matter", () => {
  test("a valid skill keeps its name, description on one line, folder, scope and hint", () => {
    expect(
      skillOf(
        file("pdf-forms", {
          name: "pdf-forms",
          description: "Fill PDF forms.\nUse for any PDF.\n",
          license: "MIT",
          compatibility: "Needs python3",
          metadata: { author: "me", version: "1.0" },
          "allowed-tools": "Bash(python:*) Read",
          "argument-hint": "FILE",
          "user-invocable": true,
        }),
      ),
    ).toEqual({
      ok: true,
      skill: {
        name: "pdf-forms",
        description: "Fill PDF forms. Use for any PDF.",
        path: "/p/.agents/skills/pdf-forms/SKILL.md",
        dir: "/p/.agents/skills/pdf-forms",
        scope: "project",
        body: "\nSteps.\n",
        hint: "FILE",
      },
    });
  });

  test("each rule of the format has its own reason", () => {
    const ok = { name: "a", description: "d" };
    expect([
      reason(file("a", {}, false)),
      reason(file("a", { name: "a" })),
      reason(file("a", {})),
      reason(file("Bad", { ...ok, name: "Bad" })),
      reason(file("-a", { ...ok, name: "-a" })),
      reason(file("a--b", { ...ok, name: "a--b" })),
      reason(file("x".repeat(65), { ...ok, name: "x".repeat(65) })),
      reason(file("a", { ...ok, name: 7 })),
      reason(file("other", ok)),
      reason(file("a", { ...ok, description: "  " })),
      reason(file("a", { ...ok, description: "d".repeat(1025) })),
      reason(file("a", { ...ok, metadata: { n: 1 } })),
      reason(file("a", { ...ok, compatibility: "c".repeat(501) })),
      reason(file("a", { ...ok, description: "d".repeat(1024) })),
    ]).toEqual([
      "it has no front matter (--- lines)",
      "the front matter has no description",
      "the front matter has no name and no description",
      "name may hold only lowercase letters, digits and single hyphens, neither first nor last",
      "name may hold only lowercase letters, digits and single hyphens, neither first nor last",
      "name may hold only lowercase letters, digits and single hyphens, neither first nor last",
      "name is 65 characters, over 64",
      "name must be text",
      "its name a is not its folder's name other",
      "description is empty",
      "description is 1025 characters, over 1024",
      "metadata must map names to text values",
      "compatibility is 501 characters, over 500",
      "ok",
    ]);
  });
});
