/**
 * The turn envelope over a real session log: one turn at a time, its end on disk before it is
 * answered and published after the turn stops counting as running; an end the log could not
 * take is answered `log_write` and written before the next turn.
 */
import { describe, expect, test } from "bun:test";
import { createTurnEnvelope } from "../../src/agent/turn-envelope.ts";
import type { LiveEvent, TurnOutcome } from "../../src/agent/types.ts";
import { ConflictError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import type { SessionLog } from "../../src/session/types.ts";
import { readSessionLog } from "../support/read-session.ts";
import { tempLog } from "../session/helpers.ts";

/** An envelope over `log`, recording what it publishes and whether a turn ran when it did. */
function envelopeOver(log: SessionLog) {
  const published: { event: LiveEvent; running: boolean }[] = [];
  let ends = 0;
  const envelope = createTurnEnvelope({
    log,
    logger: silentLogger,
    publish: (event) => published.push({ event, running: envelope.running() }),
    ended: () => {
      ends += 1;
    },
  });
  return { envelope, published, ends: () => ends };
}

const endTurn = async (turnId: string): Promise<TurnOutcome> => ({ turnId, reason: "end_turn" });
const signal = new AbortController().signal;

describe("the turn envelope", () => {
  test("a turn's end is on disk when it is answered, and published once the turn is over", async () => {
    await using temp = await tempLog();
    const { log } = temp;
    const { envelope, published, ends } = envelopeOver(log);
    const outcome = await envelope.run(signal, async (turnId) => {
      log.append({ type: "turn_start", turnId });
      return endTurn(turnId);
    });
    const { turnId } = outcome;
    expect({ outcome, running: envelope.running(), ends: ends(), published }).toEqual({
      outcome: { turnId, reason: "end_turn" },
      running: false,
      ends: 1,
      published: [{ event: { type: "turn_end", turnId, reason: "end_turn" }, running: false }],
    });
    const onDisk = (await readSessionLog(temp.home.path, log.header.id)).events;
    expect(onDisk.map((e) => e.type)).toEqual(["turn_start", "turn_end"]);
  });

  test("a body that throws ends its turn error, logged like any end", async () => {
    await using temp = await tempLog();
    const { log } = temp;
    const { envelope } = envelopeOver(log);
    const outcome = await envelope.run(signal, async (turnId) => {
      log.append({ type: "turn_start", turnId });
      throw new Error("the body broke");
    });
    const error = { code: "internal", message: "the body broke" };
    expect(outcome).toEqual({ turnId: outcome.turnId, reason: "error", error });
    expect(log.events.at(-1)).toMatchObject({ type: "turn_end", reason: "error", error });
  });

  test("refuses a second turn while one runs and any after close; close stops the running one", async () => {
    await using temp = await tempLog();
    const { log } = temp;
    const { envelope } = envelopeOver(log);
    const started = Promise.withResolvers<void>();
    const first = envelope.run(signal, async (turnId, turnSignal) => {
      log.append({ type: "turn_start", turnId });
      started.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      turnSignal.addEventListener("abort", () => resolve(), { once: true });
      await promise;
      return { turnId, reason: "cancelled" };
    });
    await started.promise;
    await expect(envelope.run(signal, endTurn)).rejects.toThrow(ConflictError);
    await envelope.close();
    expect((await first).reason).toBe("cancelled");
    await expect(envelope.run(signal, endTurn)).rejects.toThrow("the session is closed");
  });

  test("an end the log could not take is answered log_write, and logged before the next turn", async () => {
    await using temp = await tempLog();
    const { log } = temp;
    // The disk is full when the first turn ends: its end is in neither the file nor memory.
    let full = true;
    const flaky: SessionLog = {
      header: log.header,
      get events() {
        return log.events;
      },
      append: (event) => {
        if (full && event.type === "turn_end") {
          full = false;
          throw new Error("ENOSPC: no space left on device");
        }
        return log.append(event);
      },
      flush: () => log.flush(),
      [Symbol.asyncDispose]: () => log[Symbol.asyncDispose](),
    };
    const { envelope, published } = envelopeOver(flaky);
    const failed = await envelope.run(signal, async (turnId) => {
      log.append({ type: "turn_start", turnId });
      return endTurn(turnId);
    });
    const logWrite = { code: "log_write", message: "ENOSPC: no space left on device" };
    expect(failed).toEqual({ turnId: failed.turnId, reason: "error", error: logWrite });
    expect(published.at(-1)?.event).toEqual({ type: "turn_end", ...failed });

    const next = await envelope.run(signal, async (turnId) => {
      log.append({ type: "turn_start", turnId });
      return endTurn(turnId);
    });
    const ends = (await readSessionLog(temp.home.path, log.header.id)).events.flatMap((e) =>
      e.type === "turn_end" ? [{ turnId: e.turnId, reason: e.reason, error: e.error }] : [],
    );
    expect(ends).toEqual([
      { turnId: failed.turnId, reason: "error", error: logWrite },
      { turnId: next.turnId, reason: "end_turn", error: undefined },
    ]);
  });
});
