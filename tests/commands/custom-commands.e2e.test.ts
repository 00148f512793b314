/**
 * Custom commands and the advertised command list through the compiled `dsh acp`: a command
 * file's body is the prompt with its arguments put in, a name a built-in holds loses with one
 * warning, and the list is advertised again when a file is added while the session runs.
 */
import { describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import {
  advertised,
  advertises,
  messageContent,
  openSession,
  writeFile as write,
} from "../support/library-files.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";

type Advertised = Extract<acp.SessionUpdate, { sessionUpdate: "available_commands_update" }>;

/** Every command list the session was sent, in order. */
function commandLists(dsh: AcpProcess, sessionId: string): Advertised["availableCommands"][] {
  const lists: Advertised["availableCommands"][] = [];
  for (const { sessionId: id, update } of dsh.updates) {
    if (id === sessionId && update.sessionUpdate === "available_commands_update")
      lists.push(update.availableCommands);
  }
  return lists;
}

describe("custom commands", () => {
  test("a command's body is the prompt, its arguments put in; a built-in's name loses with one warning", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    write(
      join(dsh.cwd, ".dsh", "commands", "review.md"),
      "---\ndescription: Review a pull request\nargument-hint: PR PRIORITY\n---\nReview PR #$1 with priority $2.\nAll of it: $ARGUMENTS\n",
    );
    const clash = write(join(dirname(dsh.cwd), "commands", "status.md"), "Say hi.\n");
    const { sessionId, prompt } = await openSession(dsh);
    const list = await dsh.waitForUpdate(
      sessionId,
      (u) => u.sessionUpdate === "available_commands_update",
    );
    expect(advertised(list, "review")).toEqual({
      name: "review",
      description: "Review a pull request",
      input: { hint: "PR PRIORITY" },
    });
    model.script(textTurn("reviewed"));
    expect(await prompt('/review 456 "very high"')).toEqual({ stopReason: "end_turn" });
    expect(messageContent(model.requests[0], "user")).toBe(
      'Review PR #456 with priority very high.\nAll of it: 456 "very high"',
    );
    // `/status` is still the built-in one: answered without a model request.
    await prompt("/status");
    expect(model.requests).toHaveLength(1);
    await dsh.closeStdin();
    const warnings = (await dsh.stderr()).split("\n").filter((line) => line.includes(clash));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("the built-in command /status has this name");
    expect(dsh.problems).toEqual([]);
  });

  test("a command file added while the session runs works at once and is advertised after the next prompt", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    const { sessionId, prompt } = await openSession(dsh);
    await dsh.waitForUpdate(sessionId, (u) => u.sessionUpdate === "available_commands_update");
    const names = () => commandLists(dsh, sessionId).map((list) => list.map((c) => c.name));
    expect(names().at(-1)).not.toContain("later");
    write(join(dsh.cwd, ".dsh", "commands", "later.md"), "Added later: $ARGUMENTS\n");
    model.script(textTurn("ran"));
    await prompt("/later now");
    expect(messageContent(model.requests[0], "user")).toBe("Added later: now");
    const withLater = await dsh.waitForUpdate(sessionId, advertises("later"));
    expect(advertised(withLater, "later")).toEqual({
      name: "later",
      description: "Added later: $ARGUMENTS",
      input: { hint: "arguments" },
    });
    expect(names()).toHaveLength(2);
    expect(dsh.problems).toEqual([]);
  });
});
