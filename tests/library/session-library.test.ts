import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reservedCommandNames } from "../../src/commands/index.ts";
import { createSessionLibrary } from "../../src/library/session-library.ts";
import type { Logger } from "../../src/log.ts";
import type { McpServers } from "../../src/mcp/types.ts";
import { writeFile as write } from "../support/library-files.ts";
import { secretPlacesOf } from "../../src/file-safety/credential-paths.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-library-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const skill = (name: string, description = `does ${name}`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${name} body\n`;

/** A library over the temp tree: a repository `repo` with the session in `repo/app`. */
function open(mcp?: Pick<McpServers, "prompts" | "getPrompt">) {
  const warnings: string[] = [];
  const notices: string[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (message, data) => void warnings.push(`${message} ${String(data?.path)}`),
    error() {},
  };
  const library = createSessionLibrary({
    root: join(dir, "repo", "app"),
    extraRoots: [join(dir, "extra")],
    configDir: join(dir, "config"),
    home: join(dir, "home"),
    secrets: secretPlacesOf({ home: join(dir, "home"), stateDir: join(dir, "state") }),
    logger,
    reserved: reservedCommandNames(),
    mcp: () => mcp as McpServers | undefined,
    warn: (notice) => void notices.push(notice.description),
  });
  return { library, warnings, notices };
}

function layout() {
  write(join(dir, "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(join(dir, "repo", "app"), { recursive: true });
  return {
    app: join(dir, "repo", "app", ".agents", "skills"),
    repo: join(dir, "repo", ".agents", "skills"),
    extra: join(dir, "extra", ".agents", "skills"),
    config: join(dir, "config", "skills"),
    user: join(dir, "home", ".agents", "skills"),
  };
}

describe("a session's library", () => {
  test("skills from every place in precedence order; the nearer one of a name wins quietly", async () => {
    const places = layout();
    write(join(places.user, "shared", "SKILL.md"), skill("shared", "the user's"));
    write(join(places.config, "shared", "SKILL.md"), skill("shared", "the config's"));
    write(join(places.repo, "shared", "SKILL.md"), skill("shared", "the repository's"));
    write(join(places.app, "near", "SKILL.md"), skill("near"));
    write(join(places.repo, "root", "SKILL.md"), skill("root"));
    write(join(places.extra, "more", "SKILL.md"), skill("more"));
    write(join(places.config, "mine", "SKILL.md"), skill("mine"));
    write(join(places.user, "home", "SKILL.md"), skill("home"));
    write(join(dir, "outside-repo", ".agents", "skills", "x", "SKILL.md"), skill("x"));
    const { library, warnings } = open();
    await library.ready();
    const { skills, skipped } = library.snapshot();
    expect(skills.map((s) => [s.name, s.scope, s.description])).toEqual([
      ["near", "project", "does near"],
      ["root", "project", "does root"],
      ["shared", "project", "the repository's"],
      ["more", "directory", "does more"],
      ["mine", "config", "does mine"],
      ["home", "user", "does home"],
    ]);
    expect(skipped.map((s) => [s.path, s.reason, s.overridden])).toEqual([
      [
        join(places.config, "shared", "SKILL.md"),
        `overridden by ${join(places.repo, "shared", "SKILL.md")}`,
        true,
      ],
      [
        join(places.user, "shared", "SKILL.md"),
        `overridden by ${join(places.repo, "shared", "SKILL.md")}`,
        true,
      ],
    ]);
    expect(warnings).toEqual([]);
  });

  test("a built-in's name and a malformed file are left out with one warning each, ever", async () => {
    const places = layout();
    const status = write(join(places.app, "status", "SKILL.md"), skill("status"));
    const broken = write(join(places.app, "broken", "SKILL.md"), "---\nname: broken\n");
    const help = write(join(dir, "config", "commands", "help.md"), "Help me\n");
    write(join(dir, "repo", ".dsh", "commands", "tidy.md"), "Tidy $ARGUMENTS\n");
    const { library, warnings, notices } = open();
    await library.ready();
    await library.refresh();
    await library.refresh();
    expect(library.snapshot().commands.map((c) => c.name)).toEqual(["tidy"]);
    expect(warnings).toEqual([
      `skill left out ${broken}`,
      `skill left out ${status}`,
      `command left out ${help}`,
    ]);
    expect(notices).toEqual([
      [
        `${broken}: the front matter has no closing --- line`,
        `${status}: the built-in command /status has this name`,
        `${help}: the built-in command /help has this name`,
      ].join("\n"),
    ]);
  });

  test("a command of a skill's name loses to the skill; listeners hear of changes only", async () => {
    const places = layout();
    write(join(places.app, "deploy", "SKILL.md"), skill("deploy"));
    const command = write(join(dir, "repo", "app", ".dsh", "commands", "deploy.md"), "Deploy\n");
    const { library, warnings } = open();
    let heard = 0;
    library.subscribe(() => {
      heard += 1;
    });
    await library.ready();
    expect(heard).toBe(1);
    expect(library.snapshot().commands).toEqual([]);
    expect(library.snapshot().skipped).toEqual([
      {
        kind: "command",
        path: command,
        reason: `the skill ${join(places.app, "deploy", "SKILL.md")} has this name`,
        overridden: true,
      },
    ]);
    await library.refresh();
    expect(heard).toBe(1);
    write(join(dir, "repo", "app", ".dsh", "commands", "ship.md"), "Ship it\n");
    await library.refresh();
    expect(heard).toBe(2);
    expect(library.snapshot().commands.map((c) => c.name)).toEqual(["ship"]);
    expect(warnings).toEqual([]);
  });

  test("the skills block is made from the first scan and stays the same bytes", async () => {
    const places = layout();
    write(join(places.app, "first", "SKILL.md"), skill("first"));
    const { library } = open();
    const block = await library.skillsBlock();
    write(join(places.app, "second", "SKILL.md"), skill("second"));
    await library.refresh();
    expect(library.snapshot().skills.map((s) => s.name)).toEqual(["first", "second"]);
    expect(await library.skillsBlock()).toBe(block);
    expect(block).toContain("- first: does first");
    expect(block).not.toContain("second");
    expect([library.listsSkill("first"), library.listsSkill("second")]).toEqual([true, false]);
  });

  test("MCP prompts are /server:prompt, names made typable; two that meet keep the first", async () => {
    layout();
    const { library } = open({
      prompts: () => [
        { server: "my docs", prompts: [{ name: "sum up", arguments: [] }] },
        { server: "my_docs", prompts: [{ name: "sum_up", arguments: [] }] },
      ],
      getPrompt: async () => [],
    });
    await library.ready();
    expect(library.snapshot().prompts.map((p) => [p.name, p.server])).toEqual([
      ["my_docs:sum_up", "my docs"],
    ]);
    expect(library.snapshot().skipped).toEqual([
      {
        kind: "prompt",
        path: "my_docs:sum_up",
        reason: "its command name /my_docs:sum_up is taken by my docs:sum up",
        overridden: false,
      },
    ]);
  });
});
