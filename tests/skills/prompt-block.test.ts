import { describe, expect, test } from "bun:test";
import { skillsBlock } from "../../src/skills/prompt-block.ts";
import type { Skill } from "../../src/skills/skill.ts";

function skill(name: string, description: string): Skill {
  return {
    name,
    description,
    path: `/s/${name}/SKILL.md`,
    dir: `/s/${name}`,
    scope: "user",
    body: "BODY",
  };
}

const lines = (text: string) => text.split("\n").filter((line) => line.startsWith("- "));

describe("the skills block of the system prompt", () => {
  test("one line per skill in order, no body; nothing at all without skills", () => {
    const block = skillsBlock([skill("b", "Second"), skill("a", "First")]);
    expect(lines(block.text)).toEqual([
      "- b: Second (/s/b/SKILL.md)",
      "- a: First (/s/a/SKILL.md)",
    ]);
    expect(block.text).toStartWith("Skills: ");
    expect(block.text).not.toContain("BODY");
    expect(block.left).toEqual([]);
    expect(skillsBlock([])).toEqual({ text: "", left: [] });
  });

  test("past the budget descriptions are shortened evenly, then skills are left out", () => {
    const many = Array.from({ length: 10 }, (_, i) => skill(`s${i}`, "d".repeat(300)));
    const shortened = skillsBlock(many, 2_000);
    expect(shortened.text.length).toBeLessThanOrEqual(2_000);
    expect(shortened.left).toEqual([]);
    expect(lines(shortened.text).every((line) => line.includes("…"))).toBe(true);
    const crowded = skillsBlock(many, 1_100);
    expect(crowded.text.length).toBeLessThanOrEqual(1_100);
    expect(lines(crowded.text)).toHaveLength(10 - crowded.left.length);
    expect(crowded.left.map((s) => s.name)).toEqual(
      many.slice(10 - crowded.left.length).map((s) => s.name),
    );
    expect(crowded.left.length).toBeGreaterThan(0);
  });

  test("the same skills make the same bytes", () => {
    const set = [skill("x", "Does x"), skill("y", "Does y")];
    expect(skillsBlock(set).text).toBe(skillsBlock(set.map((s) => ({ ...s }))).text);
  });
});
