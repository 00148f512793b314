/**
 * `bash_output` and `bash_kill`: the model reads and ends the background commands it started
 * with `bash` `run_in_background`. A result of `bash_output` ends with the line
 * `status: running`, `status: exited <code>` or `status: killed`.
 */
import * as v from "valibot";
import { bytesForTokens } from "../../llm/tokens.ts";
import type { Tool, ToolContext, ToolResult } from "../types.ts";
import type { BackgroundJob, BackgroundJobs, JobStatus } from "./jobs.ts";

/** What one `bash_output` returns at most: the budget of any tool result. */
const OUTPUT_BYTES = bytesForTokens(10_000);
/** The longest `wait_ms` honoured. */
const MAX_WAIT_MS = 60_000;

const JobId = v.pipe(
  v.string(),
  v.minLength(1),
  v.description("The id the background bash call returned (e.g. bg-1)."),
);

export const BashOutputInput = v.object({
  id: JobId,
  wait_ms: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.description(
        `Wait up to this long (at most ${MAX_WAIT_MS}) for new output or the exit when there is none yet.`,
      ),
    ),
  ),
});
export const BashKillInput = v.object({ id: JobId });

export function createBackgroundTools(jobs: BackgroundJobs): [Tool, Tool] {
  const output: Tool<typeof BashOutputInput> = {
    name: "bash_output",
    description:
      "Read what a background command (bash with run_in_background) wrote since the last read, " +
      "and whether it still runs. The last line is `status: running`, `status: exited <code>` " +
      "or `status: killed`.",
    input: BashOutputInput,
    async execute(input, ctx) {
      const job = jobs.get(ctx.sessionId, input.id);
      if (job === undefined) return unknown(jobs, input.id, ctx);
      await job.wait(Math.min(input.wait_ms ?? 0, MAX_WAIT_MS), ctx.signal);
      const { text, dropped } = job.read(OUTPUT_BYTES);
      const lines = [
        ...(dropped > 0 ? [`[${dropped} bytes of earlier output dropped]`] : []),
        ...(text === "" ? ["(no new output)"] : [text.replace(/\n$/, "")]),
        statusLine(job.status()),
      ];
      return { isError: false, output: lines.join("\n") };
    },
    presentCall: (input) => ({ type: "generic", kind: "execute", title: `Output of ${input.id}` }),
    presentResult: (input, result) => ({
      type: "generic",
      kind: "execute",
      title: `Output of ${input.id}`,
      text: result.output,
    }),
  };
  const kill: Tool<typeof BashKillInput> = {
    name: "bash_kill",
    description:
      "End a background command (bash with run_in_background) and every process it started.",
    input: BashKillInput,
    async execute(input, ctx) {
      const job = jobs.get(ctx.sessionId, input.id);
      if (job === undefined) return unknown(jobs, input.id, ctx);
      const before = job.status();
      await job.kill();
      const note = before.state === "running" ? "" : " (it had ended already)";
      return { isError: false, output: `${describe(job)}${note}\n${statusLine(job.status())}` };
    },
    presentCall: (input) => ({ type: "generic", kind: "execute", title: `Kill ${input.id}` }),
  };
  return [output, kill];
}

/** The contract's last line of a `bash_output` result. */
export function statusLine(status: JobStatus): string {
  switch (status.state) {
    case "running":
      return "status: running";
    case "exited":
      return `status: exited ${status.code}`;
    case "killed":
      return "status: killed";
    default: {
      const exhaustive: never = status;
      return exhaustive;
    }
  }
}

function describe(job: BackgroundJob): string {
  return `${job.id}: ${job.command}`;
}

function unknown(jobs: BackgroundJobs, id: string, ctx: ToolContext): ToolResult {
  const known = jobs.list(ctx.sessionId).map((job) => `${job.id} (${statusLine(job.status)})`);
  const list = known.length === 0 ? "none" : known.join(", ");
  return { isError: true, output: `no background command "${id}" in this session; known: ${list}` };
}
