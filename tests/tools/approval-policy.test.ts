/**
 * The approval policy is applied in one place, the context's `ask()`: under `never` every
 * core tool turns down what needs approval without asking anyone; under `on-request` each
 * one asks. Runs the core tools through the registry on a real runner that has no sandbox.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { createCommandRunner } from "../../src/exec/runner.ts";
import { silentLogger } from "../../src/log.ts";
import type { Knobs } from "../../src/permission/knobs.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { type Sandbox, coreTools, makeSandbox, recordingAnswerer, toolContext } from "./harness.ts";

// No sandbox backend: a plain command needs approval to run unsandboxed.
const runner = createCommandRunner({
  env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
  sandbox: "none",
  home: "/nonexistent-home",
  stateDir: "/nonexistent-state",
  logger: silentLogger,
});

/** A call of each core tool that needs approval, and what it must not have done. */
function callsNeedingApproval(box: Sandbox) {
  fs.writeFileSync(path.join(box.evil, "kept.txt"), "before\n");
  return [
    { tool: "bash", args: { command: "touch escalated", escalate: true, justification: "test" } },
    { tool: "bash", args: { command: "touch unsandboxed" } },
    { tool: "write_file", args: { path: path.join(box.evil, "new.txt"), content: "x" } },
    {
      tool: "edit_file",
      args: { path: path.join(box.evil, "kept.txt"), old_string: "before", new_string: "after" },
    },
  ];
}

function untouched(box: Sandbox): void {
  expect([
    fs.existsSync(path.join(box.root, "escalated")),
    fs.existsSync(path.join(box.root, "unsandboxed")),
    fs.existsSync(path.join(box.evil, "new.txt")),
    fs.readFileSync(path.join(box.evil, "kept.txt"), "utf8"),
  ]).toEqual([false, false, false, "before\n"]);
}

async function runAll(box: Sandbox, knobs: Knobs) {
  const registry = createToolRegistry(coreTools({ homeDir: box.home, runner }));
  const answerer = recordingAnswerer("deny");
  const results = [];
  for (const call of callsNeedingApproval(box)) {
    const context = toolContext(box.root, { knobs, answerers: [answerer] });
    results.push((await registry.execute(call.tool, JSON.stringify(call.args), context)).result);
  }
  return { results, asked: answerer.requests.map((request) => [request.kind, request.title]) };
}

const outside = (box: Sandbox) => `the file is outside the workspace ${box.root}`;
const noSandbox =
  "No sandbox is available on this machine: sandboxing is turned off (DSH_SANDBOX=none) (fix: " +
  "unset DSH_SANDBOX or set it to auto, or choose the danger-full-access preset to run commands " +
  "unsandboxed on purpose). The command was not run, because running it unsandboxed needs the " +
  "user's approval and it was not given.";
const escalationDenied =
  "Running this command outside the sandbox was not approved, so it was not run. Try a " +
  "way that works inside the sandbox, or explain to the user what you need.";

describe("the approval policy", () => {
  test.concurrent("never: bash and the write tools refuse without asking anyone", async () => {
    using box = makeSandbox();
    const { results, asked } = await runAll(box, {
      sandboxMode: "workspace-write",
      approvalPolicy: "never",
    });
    expect(asked).toEqual([]);
    expect(results.map((result) => [result.isError, result.output])).toEqual([
      [true, escalationDenied],
      [true, noSandbox],
      [
        true,
        `writing ${path.join(box.evil, "new.txt")} needs approval (${outside(box)}), which the approval policy never gives; nothing was written`,
      ],
      [
        true,
        `writing ${path.join(box.evil, "kept.txt")} needs approval (${outside(box)}), which the approval policy never gives; nothing was written`,
      ],
    ]);
    untouched(box);
  });

  test.concurrent("on-request: each of them asks, and a denial is a no", async () => {
    using box = makeSandbox();
    const { results, asked } = await runAll(box, {
      sandboxMode: "workspace-write",
      approvalPolicy: "on-request",
    });
    expect(asked).toEqual([
      ["escalate", "Run `touch escalated` outside the sandbox"],
      ["unsandboxed", "Run `touch unsandboxed` without a sandbox"],
      ["write", `Write ${path.join(box.evil, "new.txt")}`],
      ["write", `Write ${path.join(box.evil, "kept.txt")}`],
    ]);
    expect(results.map((result) => [result.isError, result.output])).toEqual([
      [true, escalationDenied],
      [true, noSandbox],
      [
        true,
        `writing ${path.join(box.evil, "new.txt")} was not approved (${outside(box)}); nothing was written`,
      ],
      [
        true,
        `writing ${path.join(box.evil, "kept.txt")} was not approved (${outside(box)}); nothing was written`,
      ],
    ]);
    untouched(box);
  });

  test.concurrent("a workspace symlink leading out needs approval under every sandbox mode", async () => {
    using box = makeSandbox();
    const registry = createToolRegistry(coreTools({ homeDir: box.home, runner }));
    fs.symlinkSync(box.evil, path.join(box.root, "link"));
    const args = JSON.stringify({ path: "link/through.txt", content: "x" });
    const write = async (knobs: Knobs) => {
      const answerer = recordingAnswerer("deny");
      const context = toolContext(box.root, { knobs, answerers: [answerer] });
      const { result } = await registry.execute("write_file", args, context);
      return { result, asked: answerer.requests.map((request) => request.reason) };
    };
    const target = path.join(box.evil, "through.txt");
    const via = `${outside(box)} (${path.join(box.root, "link", "through.txt")} is a symlink to it)`;
    expect([
      await write({ sandboxMode: "danger-full-access", approvalPolicy: "never" }),
      await write({ sandboxMode: "danger-full-access", approvalPolicy: "on-request" }),
      await write({ sandboxMode: "workspace-write", approvalPolicy: "on-request" }),
    ]).toEqual([
      {
        result: {
          isError: true,
          output: `${path.join(box.root, "link", "through.txt")} resolves through a symlink to ${target}, outside ${box.root}; dsh does not follow it silently (name the real path if that is the file you mean)`,
        },
        asked: [],
      },
      {
        result: {
          isError: true,
          output: `writing ${target} was not approved (${outside(box)}); nothing was written`,
        },
        asked: [via],
      },
      {
        result: {
          isError: true,
          output: `writing ${target} was not approved (${outside(box)}); nothing was written`,
        },
        asked: [via],
      },
    ]);
    expect(fs.existsSync(target)).toBe(false);
  });
});
