/**
 * Who asks under which knobs, through a real agent: the same four actions under every preset
 * and every custom combination, with an answerer that records and allows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Knobs } from "../../src/permission/knobs.ts";
import { createTestAgent } from "../support/agent.ts";
import { type ModelServer, startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { recordingAnswerer } from "./rig.ts";

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(async () => {
  await model[Symbol.asyncDispose]();
});

interface Row {
  readonly knobs: Knobs;
  /** The calls that asked, in order. */
  readonly asked: string[];
  /** The calls whose effect happened. */
  readonly done: string[];
}

const rows: Row[] = [
  {
    knobs: { sandboxMode: "read-only", approvalPolicy: "on-request" },
    asked: ["inside", "dotenv", "outside", "escalate"],
    done: ["inside", "dotenv", "outside", "escalate"],
  },
  {
    knobs: { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
    asked: ["dotenv", "outside", "escalate"],
    done: ["inside", "dotenv", "outside", "escalate"],
  },
  {
    knobs: { sandboxMode: "danger-full-access", approvalPolicy: "never" },
    asked: [],
    done: ["inside", "dotenv", "outside", "escalate"],
  },
  // Custom: `never` with a sandbox turns down unasked what would have asked.
  { knobs: { sandboxMode: "read-only", approvalPolicy: "never" }, asked: [], done: [] },
  {
    knobs: { sandboxMode: "workspace-write", approvalPolicy: "never" },
    asked: [],
    done: ["inside"],
  },
  {
    knobs: { sandboxMode: "danger-full-access", approvalPolicy: "on-request" },
    asked: [],
    done: ["inside", "dotenv", "outside", "escalate"],
  },
];

describe("asking policies", () => {
  for (const row of rows) {
    const { sandboxMode, approvalPolicy } = row.knobs;
    test(`${sandboxMode} with ${approvalPolicy}: asks for ${row.asked.join(", ") || "nothing"}`, async () => {
      const recorder = recordingAnswerer("allow");
      await using agent = createTestAgent({
        baseUrl: model.url,
        answerers: [recorder.answerer],
        configToml: `sandbox_mode = "${sandboxMode}"\napproval_policy = "${approvalPolicy}"\n`,
      });
      const outside = join(dirname(agent.cwd), "outside", "o.txt");
      mkdirSync(dirname(outside));
      const paths: Record<string, string> = {
        inside: join(agent.cwd, "a.txt"),
        dotenv: join(agent.cwd, ".env"),
        outside,
        escalate: join(agent.cwd, "escalated"),
      };
      model.script(
        toolTurn([
          { id: "inside", name: "write_file", args: { path: "a.txt", content: "a" } },
          { id: "dotenv", name: "write_file", args: { path: ".env", content: "K=1" } },
          { id: "outside", name: "write_file", args: { path: outside, content: "o" } },
          { id: "escalate", name: "bash", args: { command: "touch escalated", escalate: true } },
        ]),
        textTurn("done"),
      );
      await using handle = await agent.composition.service.create({ cwd: agent.cwd });
      expect(handle.settings().knobs).toEqual(row.knobs);
      const outcome = await handle.prompt(
        [{ type: "text", text: "go" }],
        new AbortController().signal,
      );
      expect(outcome.reason).toBe("end_turn");
      expect(recorder.requests.map((r) => r.toolCallId)).toEqual(row.asked);
      expect(Object.keys(paths).filter((id) => existsSync(paths[id] ?? ""))).toEqual(row.done);
      expect(model.failures).toEqual([]);
    });
  }
});
