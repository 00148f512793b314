/**
 * SIGKILL-and-reload loop over the compiled `dsh acp`: each round starts a turn that runs
 * tools (a sandboxed command, a file write, a read), kills dsh with SIGKILL at a seeded moment
 * (after the k-th message it wrote; in every other round while the command still runs), then
 * loads the session in a new dsh and prompts again.
 * Every session must load, replay its prompts, take the next prompt, and end with a whole log;
 * no command may outlive the killed dsh. 4 rounds by default, `DSH_SOAK=N` runs 4×N.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { ensureBinary } from "../support/binary.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { historyProblems, openTurns, readStrictLog } from "../hostile/checks.ts";
import { createProject } from "../hostile/project.ts";
import { responseTo, spawnRawAcp } from "../hostile/raw-acp.ts";
import { appeared, leftAfter } from "./processes.ts";
import { createRandom, soakScale, soakSeed } from "./soak.ts";

const seed = soakSeed();
const rounds = 4 * soakScale();
const totals = { kills: 0, reloads: 0, lost: 0, orphans: 0 };

describe("dsh acp killed mid tool turn and reloaded", () => {
  // Built before the first round, so no round pays for the build.
  beforeAll(() => ensureBinary());

  afterAll(() => {
    console.log(
      `soak kill: seed ${seed}, ${totals.kills} SIGKILLs, ${totals.reloads} reloads checked, ` +
        `${totals.lost} sessions lost, ${totals.orphans} orphaned processes`,
    );
  });

  for (let round = 0; round < rounds; round++) {
    // Each round's command runs in the sandbox of the default preset.
    sandboxSerialTest(
      `round ${round + 1} of ${rounds}: the session survives and nothing is left running`,
      async () => {
        const random = createRandom(seed + round);
        using project = createProject();
        await using model = await startModelServer();
        const marker = `dsh-soak-kill-${seed}-${round}-${process.pid}`;
        let sessionId: string;
        {
          await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
          await dsh.initialize();
          sessionId = await dsh.newSession();
          // Odd rounds kill while a long command runs (anything it leaves is an orphan); even ones
          // run a short command and kill anywhere in the turn.
          const long = round % 2 === 1;
          const command = long
            ? `echo ${marker}; sleep 60; echo ${marker}`
            : `echo ${marker}; sleep 0.1`;
          model.script(
            toolTurn([
              { id: "c1", name: "bash", args: { command } },
              { id: "c2", name: "write_file", args: { path: "out.txt", content: marker } },
            ]),
            toolTurn([{ id: "c3", name: "read_file", args: { path: "out.txt" } }]),
            textTurn("all done"),
          );
          const before = dsh.messages.length;
          const killAfter = random.int(0, 12);
          const prompt = await dsh.prompt(sessionId, `round ${round}`);
          if (long) expect(await appeared(marker, 10_000)).toBe(true);
          else
            await dsh.waitFor(
              (m) => dsh.messages.indexOf(m) >= before + killAfter || responseTo(prompt)(m),
            );
          dsh.proc.kill("SIGKILL");
          await dsh.proc.exited;
          totals.kills += 1;
          expect(dsh.problems).toEqual([]);
        }
        const orphans = await leftAfter(marker, 2_000);
        totals.orphans += orphans.length;

        await using again = await spawnRawAcp(project, { baseUrl: model.url });
        await again.initialize();
        const load = await again.call("session/load", {
          sessionId,
          cwd: project.cwd,
          mcpServers: [],
        });
        totals.reloads += 1;
        if (load.error !== undefined) totals.lost += 1;
        const replayedPrompt = again
          .updates(sessionId)
          .some((u) => JSON.stringify(u).includes(`"round ${round}"`));
        model.script(textTurn("after the reload"), textTurn("after the reload"));
        const served = model.requests.length;
        const next = await again.waitFor(responseTo(await again.prompt(sessionId, "and now?")));
        const body = model.requests[served]?.body ?? model.requests.at(-1)?.body ?? {};
        expect(await again.finish()).toEqual({ code: 0, problems: [] });
        const events = await readStrictLog(project.logPath(sessionId));
        expect({
          load: load.error ?? "ok",
          replayedPrompt,
          next: next.result,
          history: historyProblems(body),
          openTurns: openTurns(events).length <= 1,
          orphans,
        }).toEqual({
          load: "ok",
          replayedPrompt: true,
          next: { stopReason: "end_turn" },
          history: [],
          openTurns: true,
          orphans: [],
        });
      },
    );
  }
});
