/**
 * The usual start of a hostile turn test: a fresh project, a scripted model server, the
 * compiled `dsh acp` pointed at it, initialized, with one session open in the project.
 */
import { type ModelServer, startModelServer } from "../support/model-server.ts";
import { type HostileProject, createProject } from "./project.ts";
import { type RawAcp, type RawAcpOptions, spawnRawAcp } from "./raw-acp.ts";

export interface SessionRig extends AsyncDisposable {
  readonly project: HostileProject;
  readonly model: ModelServer;
  readonly dsh: RawAcp;
  readonly sessionId: string;
}

/** Starts everything; dispose it with `await using` (dsh, then the server, then the files). */
export async function startSession(
  options: Pick<RawAcpOptions, "answer" | "wrap" | "env"> & {
    /** Runs on the fresh project before dsh starts. */
    readonly prepare?: (project: HostileProject) => void;
    /** Replaces the rig's `initialize` (to advertise other client capabilities). */
    readonly initialize?: (dsh: RawAcp) => Promise<void>;
  } = {},
): Promise<SessionRig> {
  const project = createProject();
  const model = await startModelServer();
  options.prepare?.(project);
  const dsh = await spawnRawAcp(project, { ...options, baseUrl: model.url });
  const dispose = async () => {
    await dsh[Symbol.asyncDispose]();
    await model[Symbol.asyncDispose]();
    project[Symbol.dispose]();
  };
  try {
    if (options.initialize === undefined) await dsh.initialize();
    else await options.initialize(dsh);
    const sessionId = await dsh.newSession();
    return { project, model, dsh, sessionId, [Symbol.asyncDispose]: dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
