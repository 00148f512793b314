/**
 * Skills at session start. In a fresh process per run (so the YAML parser loads each time):
 * the library's first scan of a project with 200 skills, a scan again with nothing changed,
 * and one after a SKILL.md changed. Through the compiled `dsh acp`, a process per measured
 * session (after a first one in an empty folder, which composes the agent): how long its first
 * scan took (its debug log says), `session/new` in that project against one in an empty
 * project (discovery runs after the response, so the two should not differ), and `session/new`
 * to the `available_commands_update` that lists all 200 (the first list goes out 100 ms after
 * the response, as Zed needs).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { emit, size } from "./lib/figures.ts";
import { startLineAgent } from "./lib/line-agent.ts";
import { report } from "./stats.ts";

const SKILLS = size(200, 20);
const RUNS = size(15, 3);
const root = mkdtempSync(join(tmpdir(), "dsh-bench-skills-"));
const project = join(root, "project");
const empty = join(root, "empty");
const warm = join(root, "warm");
const home = join(root, "home");
mkdirSync(empty, { recursive: true });
mkdirSync(warm, { recursive: true });
mkdirSync(home, { recursive: true });
for (let i = 0; i < SKILLS; i++) {
  const dir = join(project, ".agents", "skills", `skill-${i}`);
  mkdirSync(join(dir, "scripts"), { recursive: true });
  const body = Array.from({ length: 80 }, (_, k) => `${k + 1}. Step ${k} of skill ${i}.`);
  writeFileSync(
    join(dir, "SKILL.md"),
    [
      "---",
      `name: skill-${i}`,
      `description: Does task ${i} of the project. Use when the user asks for task ${i} or anything near it.`,
      "license: MIT",
      "metadata:",
      "  author: bench",
      '  version: "1.0"',
      "---",
      `# Skill ${i}`,
      ...body,
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "scripts", "run.sh"), "#!/bin/sh\necho run\n");
}

const fixture = join(import.meta.dir, "fixtures", "discover-skills.ts");
const discovery = { first: [] as number[], unchanged: [] as number[], changed: [] as number[] };
for (let run = 0; run < RUNS + 1; run++) {
  const proc = Bun.spawn(["bun", fixture, project, home], { stdout: "pipe", stderr: "inherit" });
  const out = JSON.parse(await new Response(proc.stdout).text()) as Record<string, number>;
  if ((await proc.exited) !== 0 || out.skills !== SKILLS) throw new Error(`discovery: ${out}`);
  if (run === 0) continue;
  discovery.first.push(out.first ?? 0);
  discovery.unchanged.push(out.unchanged ?? 0);
  discovery.changed.push(out.changed ?? 0);
}

await ensureBinary();
writeFileSync(join(root, "config.toml"), "");
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  DSH_HOME: join(root, "state"),
  DSH_CONFIG: join(root, "config.toml"),
  DSH_BASE_URL: "http://127.0.0.1:9",
  DSH_API_KEY: "bench",
  DSH_LOG_LEVEL: "debug",
};

/** One `dsh acp`, spoken to line by line, and how long its first scan took. */
function start() {
  const agent = startLineAgent([binaryPath, "acp"], { cwd: root, env, stderr: "pipe" });
  // The library logs how long its scan took (at debug level, which this process runs at).
  const stderr = agent.proc.stderr;
  const scanned = (
    stderr instanceof ReadableStream ? new Response(stderr).text() : Promise.resolve("")
  ).then((text) => {
    // The measured session's scan is the last (the warm-up session's comes first).
    const line = text
      .split("\n")
      .filter((entry) => entry.includes("skills and commands scanned"))
      .at(-1);
    return Number(/"ms":(\d+)/.exec(line ?? "")?.[1] ?? Number.NaN);
  });
  return { ...agent, scanned };
}

const acp = {
  skills: [] as number[],
  empty: [] as number[],
  listed: [] as number[],
  scanned: [] as number[],
};
/** One `dsh acp`, one `session/new` in `cwd`: its round trip, and on to its full command list. */
async function sessionNew(cwd: string, lastSkill: string | undefined) {
  const agent = start();
  await agent.send("initialize", { protocolVersion: 1, clientCapabilities: {} });
  await agent.nextLine();
  const open = async (where: string, last: string | undefined) => {
    const asked = performance.now();
    await agent.send("session/new", { cwd: where, mcpServers: [] });
    let answered = 0;
    for (;;) {
      const line = await agent.nextLine();
      if (answered === 0 && line.includes('"sessionId"') && line.includes('"result"')) {
        answered = performance.now() - asked;
      } else if (
        line.includes("available_commands_update") &&
        (last === undefined || line.includes(`"${last}"`))
      ) {
        return { answered, listed: performance.now() - asked };
      }
    }
  };
  // The first session of a process composes the agent: it is not the one measured.
  await open(warm, undefined);
  const measured = await open(cwd, lastSkill);
  agent.proc.stdin.end();
  await agent.proc.exited;
  return { ...measured, scanned: await agent.scanned };
}
// A process per session, so one session's discovery never runs beside another's request;
// interleaved, so load elsewhere hits both alike.
for (let run = 0; run < RUNS + 1; run++) {
  const withSkills = await sessionNew(project, `skill-${SKILLS - 1}`);
  const without = await sessionNew(empty, undefined);
  if (run === 0) continue;
  acp.skills.push(withSkills.answered);
  acp.listed.push(withSkills.listed);
  acp.scanned.push(withSkills.scanned);
  acp.empty.push(without.answered);
}

report(
  `library: first scan of ${SKILLS} skills (fresh process, YAML parser loaded)`,
  discovery.first,
);
report(`library: scan again, nothing changed`, discovery.unchanged);
report(`library: scan again, one SKILL.md changed`, discovery.changed);
report(`dsh acp: its first scan of ${SKILLS} skills (its debug log)`, acp.scanned);
report(`dsh acp: session/new with ${SKILLS} skills`, acp.skills);
report("dsh acp: session/new in an empty project", acp.empty);
report(`dsh acp: session/new → the command list with all ${SKILLS} skills`, acp.listed);
emit([
  {
    name: `skills: dsh acp discovers ${SKILLS} at session start`,
    unit: "ms",
    samples: acp.scanned,
  },
  { name: `skills: a fresh process discovers ${SKILLS}`, unit: "ms", samples: discovery.first },
  { name: "skills: scan again, nothing changed", unit: "ms", samples: discovery.unchanged },
  {
    name: `dsh acp: session/new with ${SKILLS} skills`,
    unit: "ms",
    samples: acp.skills,
    floor: acp.empty,
    target: { op: "<=", value: 5 },
  },
  {
    name: `dsh acp: session/new → commands listing ${SKILLS} skills`,
    unit: "ms",
    samples: acp.listed,
  },
]);
rmSync(root, { recursive: true, force: true });
