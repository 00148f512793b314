/**
 * Skills and custom commands in `dsh chat` (the compiled binary, piped stdin): the same
 * commands as over ACP, listed by `/help`, `/skills` and `/commands`, run as turns.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { messageContent, writeFile as write } from "../support/library-files.ts";
import { textTurn } from "../support/model-server.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-library");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const lastUser = () => messageContent(rig.server.requests.at(-1), "user");

test("a skill and a custom command run as turns in the chat and are listed where they came from", async () => {
  const project = rig.project("chat");
  const skill = write(
    join(project.cwd, ".agents", "skills", "release", "SKILL.md"),
    "---\nname: release\ndescription: Cut a release\n---\nRELEASE STEPS\n",
  );
  const bad = write(join(project.cwd, ".agents", "skills", "broken", "SKILL.md"), "no front\n");
  const command = write(
    join(project.cwd, ".dsh", "commands", "fix.md"),
    "---\ndescription: Fix an issue\nargument-hint: ISSUE\n---\nFix issue #$1.\n",
  );
  const { proc, stdout, stderr, say } = rig.chat(project);
  await say("/help");
  await stdout.waitFor("/release [TEXT]");
  expect(stdout.text()).toContain("/fix [ISSUE]");
  await say("/skills");
  await stdout.waitFor(`- release: Cut a release (project: ${skill})`);
  expect(stdout.text()).toContain(`- ${bad}: it has no front matter (--- lines)`);
  await say("/commands");
  await stdout.waitFor(`- /fix ISSUE: Fix an issue (project: ${command})`);
  rig.server.script(textTurn("released"));
  await say("/release 2.0");
  await stdout.waitFor("released");
  expect(lastUser()).toBe(
    `/release 2.0\n\n<resource uri="${Bun.pathToFileURL(skill).href}">\nRELEASE STEPS\n</resource>`,
  );
  rig.server.script(textTurn("fixed"));
  await say("/fix 42");
  await stdout.waitFor("fixed");
  expect(lastUser()).toBe("Fix issue #42.");
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
  await stderr.ended;
  // One warning for the file left out, on the terminal.
  expect(stderr.text().split(bad)).toHaveLength(2);
});
