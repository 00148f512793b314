import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import {
  COMMANDS_MIN_INTERVAL_MS,
  createCommandAdvertiser,
} from "../../src/acp/command-updates.ts";
import type { AgentHandle } from "../../src/agent/types.ts";
import { reservedCommandNames } from "../../src/commands/index.ts";
import { createSessionLibrary } from "../../src/library/session-library.ts";
import { silentLogger } from "../../src/log.ts";
import { secretPlacesOf } from "../../src/file-safety/credential-paths.ts";
import { writeFile } from "../support/library-files.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-advertise-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("changes are advertised at most once a second, each list naming what is new", async () => {
  const library = createSessionLibrary({
    root: dir,
    extraRoots: [],
    configDir: undefined,
    home: join(dir, "home"),
    secrets: secretPlacesOf({ home: join(dir, "home") }),
    logger: silentLogger,
    reserved: reservedCommandNames(),
    mcp: () => undefined,
    warn: () => {},
  });
  // The advertiser reads only the session's library from its handle.
  const handle = { library } as unknown as AgentHandle;
  const sent: { at: number; names: string[] }[] = [];
  const second = Promise.withResolvers<void>();
  const advertiser = createCommandAdvertiser({
    handle,
    async send(updates: readonly acp.SessionUpdate[]) {
      for (const update of updates) {
        if (update.sessionUpdate !== "available_commands_update") continue;
        sent.push({ at: performance.now(), names: update.availableCommands.map((c) => c.name) });
        if (sent.length === 2) second.resolve();
      }
    },
    sendLater: () => {
      throw new Error("not used without a delay");
    },
  });
  await advertiser.first();
  writeFile(join(dir, ".dsh", "commands", "one.md"), "One\n");
  await library.refresh();
  writeFile(join(dir, ".dsh", "commands", "two.md"), "Two\n");
  await library.refresh();
  await second.promise;
  advertiser.stop();
  library.close();
  expect(sent.map((list) => list.names.filter((name) => ["one", "two"].includes(name)))).toEqual([
    [],
    ["one", "two"],
  ]);
  expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(
    COMMANDS_MIN_INTERVAL_MS - 5,
  );
});
