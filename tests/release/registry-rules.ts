/**
 * The ACP registry's rules for an agent entry, as valibot: `agent.schema.json` and `FORMAT.md`
 * of https://github.com/agentclientprotocol/registry, plus the `sha256` of each binary archive
 * (64 lowercase hex digits) and the ids that belong to other agents.
 */
import * as v from "valibot";

export const PLATFORMS = [
  "darwin-aarch64",
  "darwin-x86_64",
  "linux-aarch64",
  "linux-x86_64",
  "windows-aarch64",
  "windows-x86_64",
] as const;

/** Ids other agents hold: the DeepSeek Harness adapters. */
export const TAKEN_IDS = ["dsh-acp", "deepseek-acp", "deepseek-harness-acp"];

const Url = v.pipe(v.string(), v.url());

const BinaryTarget = v.strictObject({
  archive: v.pipe(Url, v.regex(/\.(zip|tar\.gz|tgz|tar\.bz2)$/)),
  cmd: v.pipe(v.string(), v.minLength(1)),
  args: v.optional(v.array(v.string())),
  env: v.optional(v.record(v.string(), v.string())),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
});

const PackageDistribution = v.strictObject({
  package: v.pipe(v.string(), v.minLength(1)),
  args: v.optional(v.array(v.string())),
  env: v.optional(v.record(v.string(), v.string())),
});

export const AgentEntry = v.strictObject({
  id: v.pipe(
    v.string(),
    v.regex(/^[a-z][a-z0-9-]*$/),
    v.check((id) => !TAKEN_IDS.includes(id), "the id belongs to another agent"),
  ),
  name: v.pipe(v.string(), v.minLength(1)),
  version: v.pipe(v.string(), v.regex(/^[0-9]+\.[0-9]+\.[0-9]+/)),
  description: v.pipe(v.string(), v.minLength(1)),
  repository: v.optional(Url),
  website: v.optional(Url),
  authors: v.optional(v.array(v.string())),
  license: v.optional(v.string()),
  icon: v.optional(v.string()),
  distribution: v.pipe(
    v.strictObject({
      binary: v.optional(
        v.pipe(
          v.record(v.picklist(PLATFORMS), BinaryTarget),
          v.check((targets) => Object.keys(targets).length > 0, "binary needs a platform"),
        ),
      ),
      npx: v.optional(PackageDistribution),
      uvx: v.optional(PackageDistribution),
    }),
    v.check((d) => Object.keys(d).length > 0, "distribution needs at least one method"),
  ),
});
export type AgentEntry = v.InferOutput<typeof AgentEntry>;
