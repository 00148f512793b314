/** Fixtures for tool tests: a temp workspace, a recording answerer, the core tools, contexts. */
import { afterEach, beforeEach } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInteractionSeam } from "../../src/interaction/seam.ts";
import { createApprovalSeam } from "../../src/approval/seam.ts";
import type {
  ApprovalAnswerer,
  ApprovalDecision,
  ApprovalRequest,
} from "../../src/approval/types.ts";
import type { CommandRunner } from "../../src/exec/types.ts";
import { PRESETS } from "../../src/permission/knobs.ts";
import type { Knobs } from "../../src/permission/knobs.ts";
import { type CoreToolDeps, createCoreTools } from "../../src/tools/core-tools.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { createToolContext } from "../../src/tools/tool-context.ts";
import type { AnyTool, ExecutedCall, ToolContext, ToolRegistry } from "../../src/tools/types.ts";

/** A temp dir holding the workspace `R`, a sibling `R-evil`, and a fake home. */
export interface Sandbox extends Disposable {
  readonly base: string;
  readonly root: string;
  readonly evil: string;
  readonly home: string;
  /** Writes a file under the workspace (parents created) and returns its absolute path. */
  write(relative: string, content: string | Uint8Array): string;
  read(relative: string): string;
}

export function makeSandbox(): Sandbox {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "dsh-tools-")));
  const root = path.join(base, "R");
  const evil = path.join(base, "R-evil");
  const home = path.join(base, "home");
  for (const dir of [root, evil, home]) fs.mkdirSync(dir);
  return {
    base,
    root,
    evil,
    home,
    write(relative, content) {
      const file = path.join(root, relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
    read: (relative) => fs.readFileSync(path.join(root, relative), "utf8"),
    [Symbol.dispose]: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

/** An answerer that records every request and answers with a fixed decision. */
export interface RecordingAnswerer extends ApprovalAnswerer {
  readonly requests: ApprovalRequest[];
}

export function recordingAnswerer(decision: ApprovalDecision | "pass"): RecordingAnswerer {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    async answer(request) {
      requests.push(request);
      return decision;
    },
  };
}

/** File tools must never run commands: this runner fails the test if they try. */
export const forbiddenRunner: CommandRunner = {
  run: () => {
    throw new Error("file tools must not run commands");
  },
  sandbox: () => {
    throw new Error("file tools must not probe the sandbox");
  },
  [Symbol.asyncDispose]: async () => {},
};

/**
 * The core tools as the composition builds them, with a runner that fails the test if a
 * command runs and nobody to answer questions, unless `deps` gives others.
 */
export function coreTools(deps: Partial<CoreToolDeps> = {}): AnyTool[] {
  return createCoreTools({
    runner: forbiddenRunner,
    interaction: createInteractionSeam({ providers: [] }),
    ...deps,
  });
}

export interface ContextOptions {
  readonly knobs?: Knobs;
  readonly answerers?: readonly ApprovalAnswerer[];
  readonly signal?: AbortSignal;
  readonly progress?: (chunk: string) => void;
}

export function toolContext(cwd: string, options: ContextOptions = {}): ToolContext {
  return createToolContext(
    {
      signal: options.signal ?? new AbortController().signal,
      sessionId: "s-test",
      toolCallId: "call-1",
      cwd,
      knobs: options.knobs ?? PRESETS["workspace-write"],
      progress: options.progress ?? (() => {}),
    },
    createApprovalSeam({ answerers: options.answerers ?? [] }),
  );
}

/** A fresh sandbox and a registry of the file tools per test, removed after each. */
export interface FileToolsFixture {
  readonly box: Sandbox;
  readonly registry: ToolRegistry;
  /** Runs a tool through the registry with the workspace as cwd. */
  run(tool: string, args: Record<string, unknown>, options?: ContextOptions): Promise<ExecutedCall>;
}

export function useFileTools(): FileToolsFixture {
  let box: Sandbox | undefined;
  let registry: ToolRegistry | undefined;
  beforeEach(() => {
    box = makeSandbox();
    registry = createToolRegistry(coreTools({ homeDir: box.home }));
  });
  afterEach(() => box?.[Symbol.dispose]());
  const fixture: FileToolsFixture = {
    get box() {
      if (box === undefined) throw new Error("the fixture is used outside a test");
      return box;
    },
    get registry() {
      if (registry === undefined) throw new Error("the fixture is used outside a test");
      return registry;
    },
    run: (tool, args, options) =>
      fixture.registry.execute(tool, JSON.stringify(args), toolContext(fixture.box.root, options)),
  };
  return fixture;
}
