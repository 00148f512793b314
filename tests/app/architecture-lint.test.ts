/**
 * The boundaries of docs/architecture.md as the linter keeps them (biome.json): a probe file is
 * linted with the repository's configuration in a temp copy, and the real tree passes.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtemp, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const biome = join(root, "node_modules", ".bin", "biome");
const scratch = await mkdtemp(join(tmpdir(), "dsh-architecture-lint-"));
afterAll(() => rm(scratch, { recursive: true, force: true }));

interface Diagnostic {
  readonly severity: string;
  readonly category: string;
  readonly message: string;
}

async function lint(cwd: string, paths: string[]): Promise<Diagnostic[]> {
  const run = Bun.spawn([biome, "lint", "--reporter=json", "--max-diagnostics=none", ...paths], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out] = await Promise.all([new Response(run.stdout).text(), run.exited]);
  const report = JSON.parse(out) as { diagnostics: Diagnostic[] };
  return report.diagnostics;
}

let probes = 0;
/** Lints one file at `path` (inside a copy of the repository's config) holding `text`. */
async function lintProbe(path: string, text: string): Promise<Diagnostic[]> {
  const dir = join(scratch, `probe-${++probes}`);
  await mkdir(join(dir, dirname(path)), { recursive: true });
  await Bun.write(join(dir, "biome.json"), Bun.file(join(root, "biome.json")));
  await Bun.write(join(dir, path), text);
  return lint(dir, ["--vcs-enabled=false", path]);
}

const categories = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.category);

test("the bridge importing the agent loop's implementation fails lint", async () => {
  const found = await lintProbe(
    "src/acp/probe.ts",
    'import { createAgentService } from "../agent/service.ts";\n\nexport const probe = createAgentService;\n',
  );
  expect(categories(found)).toEqual(["lint/style/noRestrictedImports"]);
  expect(found[0]?.message).toContain("src/agent/types.ts");
});

test("the bridge and the chat reach the loop through src/agent/types.ts", async () => {
  const text =
    'import type { AgentHandle } from "../agent/types.ts";\n\nexport type Probe = AgentHandle;\n';
  expect(await lintProbe("src/acp/probe.ts", text)).toEqual([]);
  expect(await lintProbe("src/cli/probe.ts", text)).toEqual([]);
});

test("the chat never imports the bridge, nor the bridge the chat", async () => {
  const fromCli = await lintProbe(
    "src/cli/probe.ts",
    'import { runAcpServer } from "../acp/server.ts";\n\nexport const probe = runAcpServer;\n',
  );
  expect(categories(fromCli)).toEqual(["lint/style/noRestrictedImports"]);
  const fromAcp = await lintProbe(
    "src/acp/probe.ts",
    'import { runChat } from "../cli/chat.ts";\n\nexport const probe = runChat;\n',
  );
  expect(categories(fromAcp)).toEqual(["lint/style/noRestrictedImports"]);
});

test("the agent never imports a surface", async () => {
  const found = await lintProbe(
    "src/agent/probe.ts",
    'import { runChat } from "../cli/chat.ts";\n\nexport const probe = runChat;\n',
  );
  expect(categories(found)).toEqual(["lint/style/noRestrictedImports"]);
});

test("the agent starts no MCP server itself: it imports only MCP's contracts", async () => {
  const found = await lintProbe(
    "src/agent/probe.ts",
    'import { startMcpServers } from "../mcp/servers.ts";\n\nexport const probe = startMcpServers;\n',
  );
  expect(categories(found)).toEqual(["lint/style/noRestrictedImports"]);
  const contracts = await lintProbe(
    "src/agent/probe.ts",
    'import type { McpServers } from "../mcp/types.ts";\n\nexport type Probe = McpServers;\n',
  );
  expect(contracts).toEqual([]);
});

test("the bridge never imports a tool", async () => {
  const found = await lintProbe(
    "src/acp/probe.ts",
    'import { createBashTool } from "../tools/bash.ts";\n\nexport const probe = createBashTool;\n',
  );
  expect(categories(found)).toEqual(["lint/style/noRestrictedImports"]);
});

test("the folders below the tools never import them", async () => {
  for (const folder of ["session", "approval", "llm", "exec", "render"]) {
    const found = await lintProbe(
      `src/${folder}/probe.ts`,
      'import type { Tool } from "../tools/types.ts";\n\nexport type Probe = Tool;\n',
    );
    expect(categories(found)).toEqual(["lint/style/noRestrictedImports"]);
  }
});

test("only the composition root reads the environment", async () => {
  const text = "export const probe = process.env.HOME;\n";
  expect(categories(await lintProbe("src/exec/probe.ts", text))).toEqual([
    "lint/style/noProcessEnv",
  ]);
  expect(await lintProbe("src/app/probe.ts", text)).toEqual([]);
});

test("a function of more than 120 lines fails lint", async () => {
  const body = Array.from({ length: 125 }, (_, i) => `  total += ${i};`).join("\n");
  const text = `export function long(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
  expect(categories(await lintProbe("src/session/probe.ts", text))).toEqual([
    "lint/complexity/noExcessiveLinesPerFunction",
  ]);
});

test("the real tree passes those rules", async () => {
  const found = await lint(root, ["src", "index.ts"]);
  expect(found.filter((d) => d.severity === "error")).toEqual([]);
}, 60_000);
