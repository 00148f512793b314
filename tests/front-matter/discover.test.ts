import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type MarkdownPlace,
  type MarkdownScan,
  createMarkdownScanner,
} from "../../src/front-matter/index.ts";
import { writeFile as write } from "../support/library-files.ts";
import { secretPlacesOf } from "../../src/file-safety/credential-paths.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-markdown-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const secrets = () => secretPlacesOf({ home: join(dir, "home"), stateDir: join(dir, "state") });

function scanner(layout: "files" | "folders", maxBytes = 1024, maxEntries?: number) {
  return createMarkdownScanner({
    layout:
      layout === "files"
        ? { type: "files", extension: ".md" }
        : { type: "folders", file: "SKILL.md" },
    secrets: secrets(),
    maxBytes,
    ...(maxEntries === undefined ? {} : { maxEntries }),
  });
}

const scan = (s: ReturnType<typeof scanner>, places: MarkdownPlace[]) =>
  s.scan(places, new AbortController().signal);

/** A scan as names and paths, and what it skipped. */
function summary(result: MarkdownScan) {
  return {
    files: result.files.map((f) => [f.place.scope, f.name, f.data.description ?? null]),
    skipped: result.skipped,
  };
}

describe("markdown files with front matter", () => {
  test("places are read in order, each one's entries by name; hidden and missing ones are nothing", async () => {
    const project = join(dir, "project", ".dsh", "commands");
    const user = join(dir, "config", "commands");
    write(join(project, "zeta.md"), "---\ndescription: last\n---\nZ");
    write(join(project, "alpha.md"), "---\ndescription: first\n---\nA");
    write(join(project, ".hidden.md"), "hidden");
    write(join(project, "notes.txt"), "not markdown");
    mkdirSync(join(project, "folder.md"));
    write(join(user, "alpha.md"), "plain body, no front matter");
    const result = await scan(scanner("files"), [
      { dir: project, within: join(dir, "project"), scope: "project" },
      { dir: join(dir, "missing"), within: dir, scope: "nowhere" },
      { dir: user, within: join(dir, "config"), scope: "config" },
    ]);
    expect(summary(result)).toEqual({
      files: [
        ["project", "alpha", "first"],
        ["project", "zeta", "last"],
        ["config", "alpha", null],
      ],
      skipped: [],
    });
    expect(result.files[2]).toMatchObject({
      body: "plain body, no front matter",
      hasFrontMatter: false,
    });
  });

  test("a file outside its place's root, a link to a secret, a large file and bad YAML are skipped with why", async () => {
    const skills = join(dir, "project", ".agents", "skills");
    write(join(skills, "good", "SKILL.md"), "---\nname: good\ndescription: fine\n---\n");
    write(join(dir, "elsewhere", "SKILL.md"), "---\nname: far\n---\n");
    mkdirSync(join(skills, "far"));
    symlinkSync(join(dir, "elsewhere", "SKILL.md"), join(skills, "far", "SKILL.md"));
    write(join(dir, "home", ".ssh", "id_rsa"), "KEY");
    mkdirSync(join(skills, "key"));
    symlinkSync(join(dir, "home", ".ssh", "id_rsa"), join(skills, "key", "SKILL.md"));
    write(join(skills, "large", "SKILL.md"), `---\nname: large\n---\n${"x".repeat(2000)}`);
    write(join(skills, "yaml", "SKILL.md"), "---\nname: [\n---\n");
    mkdirSync(join(skills, "empty-folder"));
    const result = await scan(scanner("folders"), [
      { dir: skills, within: join(dir, "project"), scope: "project" },
    ]);
    const reasons = Object.fromEntries(
      result.skipped.map((entry) => [entry.path.slice(skills.length + 1), entry.reason]),
    );
    expect(summary(result).files).toEqual([["project", "good", "fine"]]);
    expect(Object.keys(reasons)).toEqual([
      "far/SKILL.md",
      "key/SKILL.md",
      "large/SKILL.md",
      "yaml/SKILL.md",
    ]);
    expect(reasons["far/SKILL.md"]).toContain(`outside ${join(dir, "project")}`);
    expect(reasons["key/SKILL.md"]).toContain(".ssh");
    expect(reasons["large/SKILL.md"]).toContain("over the 1 KiB limit");
    expect(reasons["yaml/SKILL.md"]).toContain("not valid YAML (line 2");
  });

  test("a scan again reads only files that changed", async () => {
    const place = { dir: join(dir, "commands"), within: dir, scope: "config" };
    write(join(place.dir, "a.md"), "one");
    const b = write(join(place.dir, "b.md"), "two");
    const s = scanner("files");
    const first = await scan(s, [place]);
    writeFileSync(b, "changed");
    write(join(place.dir, "c.md"), "three");
    const second = await scan(s, [place]);
    expect(second.files[0]).toBe(first.files[0] as never);
    expect(second.files.map((f) => f.body)).toEqual(["one", "changed", "three"]);
  });

  test("a place with more entries than the bound keeps the first ones by name and says so", async () => {
    const place = { dir: join(dir, "commands"), within: dir, scope: "config" };
    for (const name of ["d", "a", "c", "b"]) write(join(place.dir, `${name}.md`), name);
    const result = await scan(scanner("files", 1024, 2), [place]);
    expect(summary(result)).toEqual({
      files: [
        ["config", "a", null],
        ["config", "b", null],
      ],
      skipped: [
        { path: place.dir, reason: "it holds more than 2 entries; the rest (from c) are left out" },
      ],
    });
  });
});
