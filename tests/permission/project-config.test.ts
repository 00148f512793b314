import { expect, test } from "bun:test";
import { PROJECT_CONFIG, projectConfigMatch } from "../../src/permission/project-config.ts";

const ROOT = "/p";
const matched = (target: string) => projectConfigMatch(ROOT, target)?.path;

test("every entry says what reads it, and the list is interface.md's with Cargo's whole .cargo", () => {
  expect(PROJECT_CONFIG.map((entry) => entry.path)).toEqual([
    ".vscode",
    ".idea",
    ".zed",
    ".claude",
    ".codex",
    ".agents",
    ".dsh",
    ".mcp.json",
    ".envrc",
    ".devcontainer",
    ".github/workflows",
    ".npmrc",
    ".yarnrc.yml",
    ".cargo",
    ".pre-commit-config.yaml",
  ]);
  for (const entry of PROJECT_CONFIG) expect(entry.reason.length).toBeGreaterThan(10);
});

test("a path is protected in the project and in any directory below it, by segments", () => {
  expect([
    matched("/p/.vscode"),
    matched("/p/.vscode/settings.json"),
    matched("/p/pkg/app/.vscode/tasks.json"),
    matched("/p/.github/workflows/ci.yml"),
    matched("/p/.cargo/config.toml"),
    matched("/p/crates/x/.cargo/config"),
    matched("/p/.npmrc"),
    matched("/p/packages/web/.npmrc"),
    matched("/p/.ENVRC"),
    matched("/p/.Idea/workspace.xml"),
  ]).toEqual([
    "/p/.vscode",
    "/p/.vscode",
    "/p/pkg/app/.vscode",
    "/p/.github/workflows",
    "/p/.cargo",
    "/p/crates/x/.cargo",
    "/p/.npmrc",
    "/p/packages/web/.npmrc",
    "/p/.ENVRC",
    "/p/.Idea",
  ]);
});

test("neighbours, look-alikes, the root itself and paths outside it are not", () => {
  expect([
    matched("/p"),
    matched("/p/.github/dependabot.yml"),
    matched("/p/.github"),
    matched("/p/cargo/config.toml"),
    matched("/p/.npmrc.bak"),
    matched("/p/.npmrc/x"),
    matched("/p/my.vscode/x"),
    matched("/p/docs/npmrc"),
    matched("/elsewhere/.npmrc"),
    matched("/p-evil/.vscode/x"),
  ]).toEqual(Array(10).fill(undefined));
});
