/**
 * Protocol fuzz against the compiled `dsh acp`: seeded, generated lines of every kind (see
 * `fuzz-inputs.ts`) written in batches, each batch followed by a probe request that must be
 * answered. Every input gets exactly what it is owed (one response to its id, one null-id
 * error, or nothing), every stdout line is valid JSON-RPC and short, and dsh exits 0 at the
 * end. Runs of 1,000 inputs, each on a fresh dsh with its own seed: 2 runs by default,
 * `DSH_SOAK=N` runs 2×N.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary } from "../support/binary.ts";
import { createProject } from "../hostile/project.ts";
import { responseTo, spawnRawAcp } from "../hostile/raw-acp.ts";
import { createFuzzInputs } from "./fuzz-inputs.ts";
import { createRandom, soakScale, soakSeed } from "./soak.ts";

const RUN = 1_000;
const BATCH = 100;
/** No reply may be longer than this, whatever the input's size. */
const MAX_REPLY_CHARS = 20_000;

const seed = soakSeed();
const runs = 2 * soakScale();
const totals = { inputs: 0, requests: 0, nullErrors: 0, probes: 0, invalid: 0, crashes: 0 };

describe("dsh acp protocol fuzz", () => {
  // Built before the first round, so no round pays for the build.
  beforeAll(() => ensureBinary());

  afterAll(() => {
    console.log(
      `soak fuzz: seed ${seed}, ${runs} runs, ${totals.inputs} inputs, ${totals.requests} requests ` +
        `answered once each, ${totals.nullErrors} null-id errors, ${totals.probes} probes answered, ` +
        `${totals.invalid} invalid stdout lines, ${totals.crashes} crashes`,
    );
  });

  for (let run = 0; run < runs; run++) {
    test(`run ${run + 1} of ${runs} (seed ${seed + run}): every input answered as owed`, async () => {
      using project = createProject();
      await using dsh = await spawnRawAcp(project);
      const inputs = createFuzzInputs(createRandom(seed + run));
      const owedIds: number[] = [];
      let owedNullErrors = 0;
      let probes = 0;
      for (let written = 0; written < RUN; written += BATCH) {
        const batch = Array.from({ length: BATCH }, () => inputs.next());
        for (const input of batch) {
          if (input.owed.type === "response") owedIds.push(input.owed.id);
          if (input.owed.type === "null-error") owedNullErrors += 1;
        }
        await dsh.write(Buffer.concat(batch.map((input) => input.bytes)));
        // Still serving: a request after the batch is answered (refused only before initialize).
        const probe = await dsh.call("session/list", {}, `probe-${probes++}`);
        expect(probe.error?.code ?? "ok").toBeOneOf(["ok", -32600]);
      }
      await Promise.all(owedIds.map((id) => dsh.waitFor(responseTo(id))));
      const code = await dsh.closeStdin();

      const responses = new Map<unknown, number>();
      for (const m of dsh.messages)
        if (m.method === undefined) responses.set(m.id, (responses.get(m.id) ?? 0) + 1);
      const nullErrors = dsh.messages.filter((m) => m.id === null && m.error !== undefined).length;
      totals.inputs += RUN;
      totals.requests += owedIds.length;
      totals.nullErrors += nullErrors;
      totals.probes += probes;
      totals.invalid += dsh.problems.length;
      if (code !== 0) totals.crashes += 1;
      expect({
        code,
        problems: dsh.problems.slice(0, 5),
        notAnsweredOnce: owedIds.filter((id) => responses.get(id) !== 1).slice(0, 5),
        nullErrors,
        longLines: dsh.lines.filter((line) => line.length > MAX_REPLY_CHARS).length,
      }).toEqual({
        code: 0,
        problems: [],
        notAnsweredOnce: [],
        nullErrors: owedNullErrors,
        longLines: 0,
      });
    });
  }
});
