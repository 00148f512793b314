/**
 * The home directory reached through a second mount point: a bind mount shows `~/.aws` at
 * another path, where a check on the `$HOME` path string would let it through. The compiled
 * binary runs in a private mount namespace (as root) where that bind exists; neither the file
 * tools nor a sandboxed command may read a store there.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxStatus } from "../exec/sandbox-support.ts";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { runIf } from "../support/gate.ts";

const SECRET = "AKIA-SECOND-MOUNT-0123456789";
const ZED_KEY = "sk-zed-settings-0123456789";

const unshare = Bun.which("unshare");
const root = process.getuid?.() === 0;
const rootTest = runIf(
  root && unshare !== null && sandboxStatus.ok,
  test,
  "a bind mount in a private mount namespace needs root and unshare(1), and a sandbox backend",
);
if (!(root && unshare !== null)) {
  console.warn("SKIPPING the second-mount case: it needs root and unshare(1)");
}

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-second-mount");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

rootTest(
  "credential stores seen through a bind of home are refused, unwritable and hidden",
  async () => {
    const project = rig.project("second-mount");
    const home = project.env.HOME ?? "";
    const alias = join(project.cwd, "alias");
    mkdirSync(alias);
    mkdirSync(join(home, ".aws"), { recursive: true });
    mkdirSync(join(home, ".config", "zed"), { recursive: true });
    writeFileSync(join(home, ".aws", "credentials"), `aws_secret_access_key = ${SECRET}\n`);
    writeFileSync(join(home, ".config", "zed", "settings.json"), `{"DSH_API_KEY":"${ZED_KEY}"}\n`);
    const before = rig.server.requests.length;
    rig.server.script(
      toolTurn([
        { id: "read", name: "read_file", args: { path: "alias/.aws/credentials" } },
        { id: "zed", name: "read_file", args: { path: "alias/.config/zed/settings.json" } },
        { id: "grep", name: "grep", args: { pattern: "AKIA|sk-", path: "alias" } },
        {
          id: "write",
          name: "write_file",
          args: { path: "alias/.aws/config", content: "[default]\ncredential_process = evil\n" },
        },
        {
          id: "bash",
          name: "bash",
          args: {
            command: "cat alias/.aws/credentials alias/.config/zed/settings.json; echo done",
          },
        },
      ]),
      textTurn("checked"),
    );
    const script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"';
    const proc = Bun.spawn(
      [
        unshare ?? "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        script,
        "sh",
        home,
        alias,
        rig.binary,
        "exec",
        "look",
      ],
      { cwd: project.cwd, env: project.env, stdout: "pipe", stderr: "pipe" },
    );
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: "checked\n" });
    const results = rig.server.requests[before + 1]?.body.messages as {
      role: string;
      tool_call_id?: string;
      content: string;
    }[];
    const byCall = Object.fromEntries(
      results.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]),
    );
    expect(Object.keys(byCall).sort()).toEqual(["bash", "grep", "read", "write", "zed"]);
    expect(byCall.write).toContain("holds credentials; dsh does not write it");
    expect(existsSync(join(home, ".aws", "config"))).toBe(false);
    expect(byCall.read).toContain(`is under ${join(home, ".aws")}, which holds credentials`);
    expect(byCall.zed).toContain("holds credentials");
    expect(byCall.bash).toContain("done");
    for (const content of Object.values(byCall)) {
      expect(content).not.toContain(SECRET);
      expect(content).not.toContain(ZED_KEY);
    }
    expect(stderr).not.toContain(SECRET);
  },
);
