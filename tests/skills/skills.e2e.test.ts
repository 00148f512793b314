/**
 * Skills through the compiled `dsh acp` over real pipes: found in the project, the home
 * directory and the config directory, listed in the system prompt (never their bodies), run as
 * `/name`, overridden project over user, and a malformed one left out with one warning.
 */
import { describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { spawnAcp } from "../support/acp-process.ts";
import {
  messageContent,
  openSession,
  skillFile as skill,
  writeFile as write,
} from "../support/library-files.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";

/** The text of a request's message of `role`. */
const message = (...args: Parameters<typeof messageContent>) => String(messageContent(...args));

describe("skills", () => {
  test("the project's, the home's and the config directory's are listed in the system prompt, bodies left out", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    const root = dirname(dsh.cwd);
    const project = write(
      join(dsh.cwd, ".agents", "skills", "pdf", "SKILL.md"),
      skill("pdf", "Fill PDF forms. Use for any PDF.", "PROJECT PDF BODY: run scripts/fill.py"),
    );
    const user = write(
      join(root, "user", ".agents", "skills", "notes", "SKILL.md"),
      skill("notes", "Keep meeting notes", "USER NOTES BODY"),
    );
    // The same name in the home directory: the project's wins.
    write(
      join(root, "user", ".agents", "skills", "pdf", "SKILL.md"),
      skill("pdf", "The user's own PDF skill", "USER PDF BODY"),
    );
    const config = write(
      join(root, "skills", "deploy", "SKILL.md"),
      skill("deploy", "Deploy the service", "CONFIG DEPLOY BODY"),
    );
    const bad = write(
      join(dsh.cwd, ".agents", "skills", "Bad", "SKILL.md"),
      skill("Bad", "Not a valid name", "BAD BODY"),
    );
    const { sessionId, prompt } = await openSession(dsh);
    model.script(textTurn("one"), textTurn("two"), textTurn("three"));
    await prompt("hello");
    await prompt("/pdf fill out form.pdf");
    await prompt("and again");

    const system = message(model.requests[0], "system", 0);
    const block = system.slice(system.indexOf("Skills:"));
    expect(block).toBe(
      [
        "Skills: instructions for particular tasks, each in a folder with a SKILL.md. When a task matches a skill's description, read that SKILL.md with read_file before you start and follow it; read the other files it names (their paths are relative to the SKILL.md's folder) only when it says you need them.",
        "A user message that starts with /<skill-name> brings that skill's SKILL.md as an attached resource: follow it for the rest of the message.",
        "Available skills:",
        `- pdf: Fill PDF forms. Use for any PDF. (${project})`,
        `- deploy: Deploy the service (${config})`,
        `- notes: Keep meeting notes (${user})`,
      ].join("\n"),
    );
    expect(system).not.toContain("BODY");
    // Byte for byte the same system prompt in every request of the session.
    expect(model.requests.map((request) => message(request, "system", 0))).toEqual([
      system,
      system,
      system,
    ]);
    // `/pdf` carried the project's body and the text; the user's pdf never appears.
    const invoked = message(model.requests[1], "user", -1);
    expect(invoked).toBe(
      `/pdf fill out form.pdf\n\n<resource uri="${Bun.pathToFileURL(project).href}">\nPROJECT PDF BODY: run scripts/fill.py\n</resource>`,
    );
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain("USER PDF");
    // The malformed skill: one warning naming the file and the reason, in the log and the answer.
    await dsh.closeStdin();
    const warnings = (await dsh.stderr()).split("\n").filter((line) => line.includes(bad));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      "name may hold only lowercase letters, digits and single hyphens",
    );
    const answer = dsh.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === "agent_message_chunk")
      .map((n) =>
        n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
          ? n.update.content.text
          : "",
      )
      .join("");
    expect(answer.split(bad)).toHaveLength(2);
    expect(dsh.problems).toEqual([]);
  });
});
