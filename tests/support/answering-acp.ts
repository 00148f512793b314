/**
 * Permission answers across processes: `dsh acp` processes that share one state directory and
 * home (so saved rules carry over) and answer every permission request with the same option,
 * and `dsh rules` over that state.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { type AcpProcess, spawnAcp } from "./acp-process.ts";
import { ensureBinary } from "./binary.ts";

/** The option kind to pick, or `reject_once`. */
export type PermissionAnswer = acp.PermissionOptionKind | "reject_once";

export interface SharedState {
  /** `DSH_HOME`. */
  readonly state: string;
  /** `HOME`. */
  readonly user: string;
}

/** A `dsh acp` over `shared` that answers with `answer` and records each request, initialized. */
export async function spawnAnswering(
  shared: SharedState,
  baseUrl: string,
  answer: PermissionAnswer,
): Promise<{ readonly dsh: AcpProcess; readonly asked: acp.RequestPermissionRequest[] }> {
  const asked: acp.RequestPermissionRequest[] = [];
  const dsh = await spawnAcp({
    baseUrl,
    env: { DSH_HOME: shared.state, HOME: shared.user },
    onPermission: (params) => {
      asked.push(params);
      const option = params.options.find((o) => o.kind === answer);
      return { outcome: { outcome: "selected", optionId: option?.optionId ?? "none" } };
    },
  });
  await dsh.agent.request("initialize", { protocolVersion: 1 });
  return { dsh, asked };
}

/** `dsh rules ARGS` over `shared`'s state; its exit code and stdout. */
export async function dshRules(shared: SharedState, ...args: string[]) {
  const proc = Bun.spawn([await ensureBinary(), "rules", ...args], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: shared.user,
      DSH_HOME: shared.state,
      DSH_CONFIG: "/dev/null",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
  return { code, stdout };
}
