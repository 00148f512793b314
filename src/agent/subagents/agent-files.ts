/**
 * Custom agents for `task`: Markdown files in the project's `.dsh/agents/` and the config
 * directory's `agents/`, front matter `name`, `description`, `tools` (optional list), `model`
 * (optional), the body the agent's system prompt. The project's file wins a name clash; a file
 * whose front matter is bad is skipped, and named in one warning.
 */
import { join } from "node:path";
import * as v from "valibot";
import {
  type MarkdownPlace,
  createMarkdownScanner,
  firstOfEachName,
} from "../../front-matter/index.ts";
import type { SecretPlaces } from "../../file-safety/credential-paths.ts";

/** A custom agent as its file defines it. */
export interface CustomAgent {
  readonly name: string;
  readonly description: string;
  /** The tools it gets, exactly; every tool a `general` task gets when absent. */
  readonly tools?: readonly string[];
  readonly model?: string;
  readonly systemPrompt: string;
  readonly path: string;
}

export interface AgentFilesDeps {
  /** The session root, realpath'd. */
  readonly root: string;
  readonly configDir: string | undefined;
  readonly secrets: SecretPlaces;
  /** One warning for all the files left out. */
  readonly warn: (notice: { title: string; description: string }) => void;
  readonly signal: AbortSignal;
}

/** The largest agent file read. */
const MAX_AGENT_FILE_BYTES = 64 * 1024;
/** The names `task` holds for itself. */
const BUILT_IN = new Set(["explore", "general"]);

const AgentName = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "lower-case letters, digits, - and _ (at most 64)"),
);
const ToolList = v.union([
  v.array(v.pipe(v.string(), v.minLength(1))),
  // `tools: read_file, grep` as one string, as Claude Code's agent files write it.
  v.pipe(
    v.string(),
    v.transform((text) =>
      text
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== ""),
    ),
  ),
]);
const AgentFrontMatter = v.object({
  name: v.optional(AgentName),
  description: v.pipe(v.string(), v.minLength(1)),
  tools: v.optional(ToolList),
  model: v.optional(v.pipe(v.string(), v.minLength(1))),
});

/** The session's custom agents, in precedence order (the project's first). Never throws. */
export async function findCustomAgents(deps: AgentFilesDeps): Promise<CustomAgent[]> {
  const places: MarkdownPlace[] = [
    { dir: join(deps.root, ".dsh", "agents"), within: deps.root, scope: "project" },
    ...(deps.configDir === undefined
      ? []
      : [{ dir: join(deps.configDir, "agents"), within: deps.configDir, scope: "config" }]),
  ];
  const scanner = createMarkdownScanner({
    layout: { type: "files", extension: ".md" },
    secrets: deps.secrets,
    maxBytes: MAX_AGENT_FILE_BYTES,
  });
  let scan: Awaited<ReturnType<typeof scanner.scan>>;
  try {
    scan = await scanner.scan(places, deps.signal);
  } catch {
    return [];
  }
  const skipped = scan.skipped.map((entry) => `${entry.path}: ${entry.reason}`);
  const agents: CustomAgent[] = [];
  for (const file of scan.files) {
    const parsed = v.safeParse(AgentFrontMatter, file.data);
    if (!file.hasFrontMatter || !parsed.success) {
      const why = parsed.success
        ? "no front matter (it needs at least a description)"
        : parsed.issues
            .map((issue) => `${v.getDotPath(issue) ?? "front matter"}: ${issue.message}`)
            .join("; ");
      skipped.push(`${file.path}: ${why}`);
      continue;
    }
    const name = parsed.output.name ?? file.name;
    if (!v.is(AgentName, name) || BUILT_IN.has(name)) {
      skipped.push(`${file.path}: the name "${name}" is not allowed (or is a built-in agent's)`);
      continue;
    }
    const { description, tools, model } = parsed.output;
    agents.push({
      name,
      description: description.replace(/\s+/g, " ").trim(),
      ...(tools === undefined ? {} : { tools }),
      ...(model === undefined ? {} : { model }),
      systemPrompt: file.body.trim(),
      path: file.path,
    });
  }
  if (skipped.length > 0) {
    deps.warn({
      title:
        skipped.length === 1
          ? "a custom agent was left out"
          : `${skipped.length} custom agents were left out`,
      description: skipped.join("\n"),
    });
  }
  return firstOfEachName(agents, (agent) => agent.name).kept;
}
