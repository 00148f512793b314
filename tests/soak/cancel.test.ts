/**
 * Cancel-race loop over the compiled `dsh acp`: prompts whose turns stream text, stall or run a
 * quick tool, each cancelled at a seeded moment (at once, or after the k-th message dsh wrote for
 * it, which may be after the turn ended). Every prompt must settle exactly once, as
 * `cancelled` or `end_turn`, the log must end each turn exactly once with the reason the
 * client was given, and the session must take the next prompt. 3 runs of 8 prompts by
 * default, `DSH_SOAK=N` runs 3×N.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary } from "../support/binary.ts";
import {
  type ScriptedTurn,
  startModelServer,
  textTurn,
  toolTurn,
} from "../support/model-server.ts";
import { endReasons, openTurns, readStrictLog } from "../hostile/checks.ts";
import { createProject } from "../hostile/project.ts";
import { responseTo, spawnRawAcp } from "../hostile/raw-acp.ts";
import { createRandom, soakScale, soakSeed } from "./soak.ts";

const PROMPTS = 8;
const STALL_TEXT = "stalling here ";
const seed = soakSeed();
const runs = 3 * soakScale();
const totals = { cancels: 0, settledOnce: 0, cancelled: 0, ended: 0, other: 0 };

describe("dsh acp cancel races", () => {
  // Built before the first round, so no round pays for the build.
  beforeAll(() => ensureBinary());

  afterAll(() => {
    console.log(
      `soak cancel: seed ${seed}, ${totals.cancels} cancels at random moments, ` +
        `${totals.settledOnce} settled exactly once (${totals.cancelled} cancelled, ` +
        `${totals.ended} end_turn), ${totals.other} settled otherwise or more than once`,
    );
  });

  for (let run = 0; run < runs; run++) {
    test(`run ${run + 1} of ${runs}: ${PROMPTS} prompts, each cancelled at a random moment`, async () => {
      const random = createRandom(seed + 1_000 + run);
      using project = createProject();
      await using model = await startModelServer();
      await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
      await dsh.initialize();
      const sessionId = await dsh.newSession();
      const answered: string[] = [];
      for (let i = 0; i < PROMPTS; i++) {
        // A turn that was cancelled before its request leaves its script for the next one;
        // every script is a whole turn, so whichever runs next is well formed.
        const gate = Promise.withResolvers<void>();
        model.script(...turnScript(random, i, gate.promise));
        const before = dsh.messages.length;
        const cancelAfter = random.chance(0.2) ? -1 : random.int(0, 8);
        const prompt = await dsh.prompt(sessionId, `prompt ${i}`);
        if (cancelAfter >= 0)
          await dsh.waitFor((m) => {
            const index = dsh.messages.indexOf(m);
            // A stalled turn writes nothing more until the cancel opens its gate.
            const stalled =
              index >= before && JSON.stringify(m.params ?? null).includes(STALL_TEXT);
            return index >= before + cancelAfter || stalled || responseTo(prompt)(m);
          });
        await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
        totals.cancels += 1;
        gate.resolve();
        const reply = await dsh.waitFor(responseTo(prompt));
        const replies = dsh.messages.filter(responseTo(prompt));
        const reason = JSON.stringify(reply.result ?? reply.error);
        if (replies.length === 1 && (reason.includes("cancelled") || reason.includes("end_turn"))) {
          totals.settledOnce += 1;
          if (reason.includes("cancelled")) totals.cancelled += 1;
          else totals.ended += 1;
        } else totals.other += 1;
        answered.push((reply.result as { stopReason?: string } | undefined)?.stopReason ?? reason);
      }
      model.script(textTurn("still here"));
      const last = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "still there?")));
      expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
      const events = await readStrictLog(project.logPath(sessionId));
      const starts = events.filter((e) => e.type === "turn_start").length;
      expect({
        answered: answered.filter((r) => r !== "cancelled" && r !== "end_turn"),
        logged: endReasons(events),
        starts,
        open: openTurns(events),
        last: last.result,
      }).toEqual({
        answered: [],
        logged: [...answered, "end_turn"],
        starts: PROMPTS + 1,
        open: [],
        last: { stopReason: "end_turn" },
      });
    });
  }
});

/**
 * One prompt's scripted turns: plain text, text in pieces, a quick tool and an answer, or text
 * that stalls at `gate` (opened once the cancel is sent).
 */
function turnScript(
  random: ReturnType<typeof createRandom>,
  i: number,
  gate: Promise<void>,
): ScriptedTurn[] {
  switch (random.int(0, 3)) {
    case 3:
      return [
        {
          respond: {
            stream: [{ text: STALL_TEXT }, { until: gate }, { text: "after" }, { finish: "stop" }],
          },
        },
      ];
    case 0:
      return [textTurn(`answer ${i}`)];
    case 1:
      return [
        {
          respond: {
            stream: [
              ...Array.from({ length: 20 }, (_, n) => ({ text: `piece ${n} ` })),
              { finish: "stop" as const },
              { done: true as const },
            ],
          },
        },
      ];
    default:
      return [
        toolTurn([{ id: `r${i}`, name: "glob", args: { pattern: "*" } }]),
        textTurn(`found it ${i}`),
      ];
  }
}
