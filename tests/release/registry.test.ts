/** The ACP registry entry (registry/dsh) and its icon follow the registry's rules and name real archives. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as v from "valibot";
import { readAssets, registryEntry } from "../../scripts/release-manifests.ts";
import { VERSION, releaseBase } from "../../scripts/project.ts";
import { TARGETS, archiveName } from "../../scripts/targets.ts";
import { AgentEntry } from "./registry-rules.ts";
import { releaseDir, releaseTest, sha256Of } from "./release-dir.ts";

const root = join(import.meta.dir, "..", "..");

describe("registry entry", () => {
  test("the committed entry follows the registry's rules, pins this version and runs `acp`", async () => {
    const entry = v.parse(
      AgentEntry,
      await Bun.file(join(root, "registry", "dsh", "agent.json")).json(),
    );
    expect(entry.id).toBe("dsh");
    expect(entry.version).toBe(VERSION);
    const binary = entry.distribution.binary ?? {};
    expect(Object.keys(binary).sort()).toEqual([
      "darwin-aarch64",
      "darwin-x86_64",
      "linux-aarch64",
      "linux-x86_64",
      "windows-x86_64",
    ]);
    for (const target of TARGETS) {
      if (target.registry === undefined) continue;
      expect(binary[target.registry as keyof typeof binary]).toMatchObject({
        archive: `${releaseBase(VERSION)}/${archiveName(target)}`,
        cmd: `./${target.executable}`,
        args: ["acp"],
      });
    }
  });

  test("the icon is a 16×16 single-colour SVG drawn in currentColor", async () => {
    const svg = await Bun.file(join(root, "registry", "dsh", "icon.svg")).text();
    expect(svg).toMatch(/<svg[^>]* width="16"[^>]* height="16"/);
    expect(svg).toContain('viewBox="0 0 16 16"');
    const colours = [...svg.matchAll(/(?:fill|stroke)="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(colours.filter((c) => c !== "none"))).toEqual(new Set(["currentColor"]));
    expect(svg).not.toMatch(/#[0-9a-f]{3,8}\b|rgb\(/i);
  });

  releaseTest(
    "an entry made from build:all's archives names each archive with its real checksum",
    async () => {
      const entry = v.parse(AgentEntry, registryEntry(await readAssets(releaseDir)));
      const named = Object.values(entry.distribution.binary ?? {});
      expect(named.length).toBe(5);
      for (const target of named) {
        const file = join(releaseDir, target.archive.split("/").at(-1) ?? "");
        expect(await Bun.file(file).exists()).toBe(true);
        expect(await sha256Of(file)).toBe(target.sha256);
      }
    },
  );
});
