import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findCustomAgents } from "../../../src/agent/subagents/agent-files.ts";
import { secretPlacesOf } from "../../../src/file-safety/credential-paths.ts";

function places() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "dsh-agents-")));
  const root = join(base, "project");
  const configDir = join(base, "config");
  mkdirSync(join(root, ".dsh", "agents"), { recursive: true });
  mkdirSync(join(configDir, "agents"), { recursive: true });
  return { base, root, configDir };
}

describe("custom agent files", () => {
  test("front matter and body make an agent; the project's wins a name; bad files are one warning", async () => {
    const { base, root, configDir } = places();
    const project = join(root, ".dsh", "agents");
    writeFileSync(
      join(project, "reviewer.md"),
      "---\ndescription: Reviews\n  a change\ntools: read_file, grep\nmodel: deepseek-pro\n---\nYou review.\n",
    );
    writeFileSync(join(configDir, "agents", "reviewer.md"), "---\ndescription: shadowed\n---\nx\n");
    writeFileSync(
      join(configDir, "agents", "writer.md"),
      "---\nname: scribe\ndescription: Writes\ntools: [write_file]\n---\nYou write.\n",
    );
    writeFileSync(join(project, "no-description.md"), "---\nname: x\n---\nbody\n");
    writeFileSync(join(project, "plain.md"), "no front matter at all\n");
    writeFileSync(
      join(project, "explore.md"),
      "---\ndescription: takes a built-in's name\n---\nx\n",
    );
    writeFileSync(join(project, "broken.md"), "---\ndescription: [unclosed\n---\nx\n");
    const warnings: { title: string; description: string }[] = [];
    const agents = await findCustomAgents({
      root,
      configDir,
      secrets: secretPlacesOf({ home: join(base, "home") }),
      warn: (notice) => warnings.push(notice),
      signal: new AbortController().signal,
    });
    expect(agents.map(({ path: _path, ...agent }) => agent)).toEqual([
      {
        name: "reviewer",
        description: "Reviews a change",
        tools: ["read_file", "grep"],
        model: "deepseek-pro",
        systemPrompt: "You review.",
      },
      { name: "scribe", description: "Writes", tools: ["write_file"], systemPrompt: "You write." },
    ]);
    expect(warnings.map((warning) => warning.title)).toEqual(["4 custom agents were left out"]);
    for (const file of ["no-description.md", "plain.md", "explore.md", "broken.md"]) {
      expect(warnings[0]?.description).toContain(join(project, file));
    }
  });

  test("no folders, no agents and no warning", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "dsh-agents-")));
    const warnings: unknown[] = [];
    const agents = await findCustomAgents({
      root: base,
      configDir: undefined,
      secrets: secretPlacesOf({ home: join(base, "home") }),
      warn: (notice) => warnings.push(notice),
      signal: new AbortController().signal,
    });
    expect([agents, warnings]).toEqual([[], []]);
  });
});
