/**
 * An edit that asks first, as its card looks in Zed: everything dsh wrote to the client (the
 * announced call, the permission request's tool call, the result) folded by Zed's merge rules
 * (`tests/support/zed-card.ts`). While it waits the card shows the question and the proposed
 * diff; once allowed, the diff that was written and nothing else (after a reload too); once
 * rejected, no diff.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { startAcpFixture } from "../support/acp-fixture.ts";
import { startAcpHarness, zedInitialize } from "../support/acp-harness.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { type CardEntry, type ZedCard, zedCardHistory } from "../support/zed-card.ts";

const diffsOf = (card: ZedCard | undefined) =>
  (card?.content ?? []).filter((entry) => entry.type === "diff");

const EDITS = [
  {
    tool: "write_file",
    title: "Write .env",
    args: { path: ".env", content: "KEY=2\n" },
    before: undefined,
    after: "KEY=2\n",
  },
  {
    tool: "edit_file",
    title: "Edit .env",
    args: { path: ".env", old_string: "KEY=1", new_string: "KEY=2" },
    before: "KEY=1\nOTHER=x\n",
    after: "KEY=2\nOTHER=x\n",
  },
] as const;

describe("an edit that needs approval, as Zed shows its card", () => {
  for (const edit of EDITS) {
    for (const answer of ["allow", "reject"] as const) {
      const end = answer === "allow" ? "the written diff at the end" : "no diff once rejected";
      test(`${edit.tool}, ${answer}: never two diffs; ${end}`, async () => {
        await using f = await startAcpFixture({
          onPermission: () => ({ outcome: { outcome: "selected", optionId: answer } }),
        });
        const { sessionId } = await f.newSession();
        const path = join(f.agent.cwd, ".env");
        if (edit.before !== undefined) writeFileSync(path, edit.before);
        f.model.script(toolTurn([{ id: "c1", name: edit.tool, args: edit.args }]), textTurn("ok"));
        expect(await f.prompt(sessionId, "edit")).toEqual({ stopReason: "end_turn" });

        const history = zedCardHistory(f.h.sent, sessionId, "c1");
        expect(history.map((card) => diffsOf(card).length <= 1)).toEqual(history.map(() => true));
        const waiting = history.find((card) => card.status === "waiting for confirmation");
        const proposed: CardEntry = {
          type: "diff",
          path,
          oldText: edit.before ?? null,
          newText: edit.after,
        };
        expect(diffsOf(waiting)).toEqual([proposed]);
        const final = history.at(-1);
        const onDisk = existsSync(path) ? readFileSync(path, "utf8") : undefined;
        if (answer === "allow") {
          expect(onDisk).toBe(edit.after);
          // The question is gone with the prompt; the card holds what was written.
          expect(final).toEqual({ title: edit.title, status: "completed", content: [proposed] });
          // A reload shows the same card.
          await f.h.disconnect();
          await using again = startAcpHarness({
            service: f.agent.composition.service,
            models: f.agent.composition.models,
          });
          await again.agent.request(acp.methods.agent.initialize, zedInitialize(true));
          await again.agent.request(acp.methods.agent.session.load, {
            sessionId,
            cwd: f.agent.cwd,
            mcpServers: [],
          });
          expect(zedCardHistory(again.sent, sessionId, "c1").at(-1)).toEqual(final);
        } else {
          expect(onDisk).toBe(edit.before);
          expect({ status: final?.status, diffs: diffsOf(final) }).toEqual({
            status: "failed",
            diffs: [],
          });
        }
        expect(f.h.problems).toEqual([]);
      });
    }
  }
});
