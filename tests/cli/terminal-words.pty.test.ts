/**
 * What the terminal says and offers, as a person coming from Claude Code or Codex meets it:
 * familiar commands, `@file`, command output, `/help`, error words, day-one guards and
 * approvals. The compiled binary under a real pseudo-terminal against the scripted model
 * server; every wait is for the screen or the server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { spawnPty } from "../support/pty.ts";
import { CTRL_D, TURN_ENDED, chatPty, requestsFromNow } from "../support/pty-chat.ts";

let rig: CliRig;
beforeAll(async () => {
  rig = await startCliRig("dsh-pty-words");
});
afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const lastRow = (rows: string[]) => rows.at(-1) ?? "";
const plain = (text: string) => Bun.stripANSI(text).replace(/\r/g, "");

describe("familiar commands", () => {
  test("/new starts a new session and says how to resume the last one; /clear does too", async () => {
    const project = rig.project("new-session");
    const requests = requestsFromNow(rig);
    rig.server.script(textTurn("first answer"), textTurn("fresh answer"));
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("remember 42\r");
    await pty.waitFor(TURN_ENDED);
    pty.type("/new\r");
    await pty.waitFor("the last one is saved: dsh --resume ");
    const old = /the last one is saved: dsh --resume ([0-9a-f-]{36})/.exec(plain(pty.output()));
    expect(existsSync(join(project.home, "sessions", `${old?.[1]}.jsonl`))).toBe(true);
    pty.type("and now?\r");
    const fresh = await requests.received(1);
    const users = (fresh.body.messages as { role: string }[]).filter((m) => m.role === "user");
    expect(users).toHaveLength(1);
    await pty.waitFor("fresh answer");
    await pty.waitFor(TURN_ENDED, pty.output().indexOf("fresh answer"));
    const mark = pty.output().length;
    pty.type("/clear\r");
    await pty.waitFor("the last one is saved: dsh --resume ", mark);
    await pty.waitForScreen((rows) => !rows.some((row) => row.includes("remember 42")), "cleared");
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });

  test("/diff, /undo, /rewind, /fork and /add-dir answer in the chat and never reach the model", async () => {
    const project = rig.project("later");
    const before = rig.server.requests.length;
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    const answers: [string, string][] = [
      ["/diff", "No changes since the session began."],
      ["/undo", "no turn of this session changed files"],
      ["/rewind 2", "this session has no prompt turn to go back to"],
      ["/fork", "Forked: this chat goes on in session "],
      ["/add-dir /no/such/dir", 'additional directory "/no/such/dir" does not exist'],
    ];
    for (const [command, answer] of answers) {
      const mark = pty.output().length;
      pty.type(`${command}\r`);
      await pty.waitFor(answer, mark);
    }
    expect(rig.server.requests.length).toBe(before);
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });

  test('an unknown /word close to a command asks "did you mean"; a path or a sentence goes to the model', async () => {
    const project = rig.project("did-you-mean");
    const requests = requestsFromNow(rig);
    rig.server.script(textTurn("sent as typed"), textTurn("a path, then"));
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("/stauts\r");
    await pty.waitFor("unknown command /stauts: did you mean /status?");
    await pty.waitForScreen((rows) => lastRow(rows) === "› /stauts", "the line back at the prompt");
    expect(rig.server.requests.length).toBe(requests.base);
    // Entered again as it was, it goes to the model.
    pty.type("\r");
    expect(await requests.lastUserMessage(0)).toBe("/stauts");
    await pty.waitFor(TURN_ENDED);
    pty.type("/usr/bin/env is missing here\r");
    expect(await requests.lastUserMessage(1)).toBe("/usr/bin/env is missing here");
    await pty.waitFor("a path, then");
    expect(plain(pty.output())).not.toContain("did you mean /undo");
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });

  test("Tab completes a slash command and a path after @", async () => {
    const project = rig.project("tab");
    mkdirSync(join(project.cwd, "src"));
    writeFileSync(join(project.cwd, "src", "app.ts"), "export {};\n");
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("/sta\t");
    await pty.waitForScreen((rows) => lastRow(rows) === "› /status", "the command completed");
    pty.type("\u0015look at @sr\t");
    await pty.waitForScreen((rows) => lastRow(rows) === "› look at @src/", "the directory");
    pty.type("\t");
    await pty.waitForScreen((rows) => lastRow(rows) === "› look at @src/app.ts", "the file");
    pty.type("\u0015");
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });
});

describe("@file", () => {
  const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

  test("attaches a text file, refuses one outside the project, and sends a note for an image a model cannot see", async () => {
    const project = rig.project("mentions");
    writeFileSync(join(project.cwd, "notes.txt"), "alpha\nbeta\n");
    writeFileSync(join(project.base, "outside.txt"), "TOKEN=hunter2\n");
    writeFileSync(join(project.cwd, "shot.png"), PNG);
    const requests = requestsFromNow(rig);
    rig.server.script(
      textTurn("read the notes"),
      textTurn("no secret"),
      textTurn("a note only"),
      textTurn("still a note"),
    );
    await using pty = chatPty(rig, project, { args: ["--model", "deepseek-v4-pro"] });
    await pty.waitFor("› ");
    pty.type("summarize @notes.txt please\r");
    await pty.waitFor("attached notes.txt (2 lines)");
    expect(JSON.stringify(await requests.lastUserMessage(0))).toContain("alpha\\nbeta");
    await pty.waitFor(TURN_ENDED);
    pty.type("and @../outside.txt\r");
    await pty.waitFor(`not attached ${join(project.base, "outside.txt")}: it resolves to`);
    expect(JSON.stringify(await requests.lastUserMessage(1))).not.toContain("hunter2");
    await pty.waitFor("no secret");
    await pty.waitFor(TURN_ENDED, pty.output().indexOf("no secret"));
    const note =
      "[an image was attached; this model cannot see images; switch to deepseek-flash to have it seen]";
    pty.type("look at @shot.png\r");
    await pty.waitFor("attached shot.png (image)");
    expect(await requests.lastUserMessage(2)).toEqual([
      { type: "text", text: "look at @shot.png" },
      { type: "text", text: note },
    ]);
    await pty.waitFor("a note only");
    await pty.waitFor(TURN_ENDED, pty.output().indexOf("a note only"));
    const told = "model deepseek-v4-pro cannot see images";
    expect(plain(pty.output()).split(told)).toHaveLength(2);
    pty.type("again @shot.png\r");
    await pty.waitFor("still a note");
    await pty.waitFor(TURN_ENDED, pty.output().indexOf("still a note"));
    expect(JSON.stringify(await requests.lastUserMessage(3))).toContain(note);
    expect(plain(pty.output()).split(told)).toHaveLength(2);
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });

  test("an image goes to a model with vision", async () => {
    const config = `[[models]]\nid = "seer"\nbase_url = "${rig.server.url}"\nvision = true\n`;
    const project = rig.project("image", config);
    // A model the config file gives vision, the way a local one is set up.
    writeFileSync(join(project.cwd, "shot.png"), PNG);
    const requests = requestsFromNow(rig);
    rig.server.script(textTurn("a picture"));
    await using pty = chatPty(rig, project, { args: ["--model", "seer"] });
    await pty.waitFor("› ");
    pty.type("what is @shot.png\r");
    await pty.waitFor("attached shot.png (image)");
    const content = JSON.stringify(await requests.lastUserMessage(0));
    expect(content).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
    await pty.waitFor("a picture");
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });
});

test("a failing command's output is printed once; its result line says the exit code", async () => {
  const project = rig.project("failing-command");
  rig.server.script(
    toolTurn([{ id: "b1", name: "bash", args: { command: "echo boom-line; exit 3" } }]),
    textTurn("it failed"),
  );
  await using pty = chatPty(rig, project, { args: ["--permission", "danger-full-access"] });
  await pty.waitFor("› ");
  pty.type("run it\r");
  await pty.waitFor(TURN_ENDED);
  const rows = pty.transcript();
  expect(rows.filter((row) => row.includes("│ boom-line"))).toEqual(["  │ boom-line"]);
  expect(rows.filter((row) => row.includes("✗"))).toEqual(["  ✗ exit 3"]);
  expect(rows).toContain("  ✗ exit 3");
  pty.type(CTRL_D);
  expect(await pty.exited).toBe(0);
});

test.each([80, 110])("/help at %i columns: no line is wider, no word is cut", async (cols) => {
  const project = rig.project(`help-${cols}`);
  await using pty = chatPty(rig, project, { cols });
  await pty.waitFor("› ");
  pty.type("/help\r");
  await pty.waitFor("attaches a file.");
  const rows = pty.transcript();
  const help = rows.slice(
    rows.indexOf("› /help") + 1,
    rows.findIndex((row) => row.endsWith("attaches a file.")) + 1,
  );
  // A row as wide as the screen would be a line the terminal had to wrap.
  expect(help.filter((row) => Bun.stringWidth(row) >= cols)).toEqual([]);
  const words = help
    .join(" ")
    .split(/\s+/)
    .map((word) => word.replace(/[.,:;)]$/, ""));
  for (const word of ["conversation", "summary", "permission", "completes", "reasoning"])
    expect(words).toContain(word);
  pty.type(CTRL_D);
  expect(await pty.exited).toBe(0);
});

describe("error words", () => {
  test("a base URL that answers with a web page says so, with what doctor says, and no HTML", async () => {
    await using page = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response("<!DOCTYPE html><html><body><h1>Not Found</h1></body></html>", {
          status: 404,
          headers: { "content-type": "text/html" },
        }),
    });
    const project = rig.project("web-page");
    const base = `http://127.0.0.1:${page.port}/v1`;
    await using pty = spawnPty([rig.binary, "exec", "hi"], {
      cwd: project.cwd,
      env: { ...project.env, DSH_BASE_URL: base },
    });
    expect(await pty.exited).toBe(1);
    const said = plain(pty.output());
    expect(said).toContain(
      `dsh: 127.0.0.1:${page.port} answered HTTP 404 with a web page, not an OpenAI-compatible API; DSH_BASE_URL (${base}) should be the URL that /chat/completions hangs off`,
    );
    expect(said).not.toContain("<h1>");
  });

  test("a config error names the file, the line, the key and the one meant; a TOML error its line", async () => {
    const typo = rig.project("config-typo", 'model = "deepseek-flash"\nmodle = "x"\n');
    {
      await using pty = chatPty(rig, typo);
      expect(await pty.exited).toBe(1);
      expect(plain(pty.output())).toContain(
        `${join(typo.base, "config.toml")}:2: unknown key "modle" (did you mean "model"?); allowed keys here: model, base_url,`,
      );
    }
    const broken = rig.project("config-toml", 'model = "x"\n[models\n');
    await using pty = chatPty(rig, broken);
    expect(await pty.exited).toBe(1);
    expect(plain(pty.output())).toContain(
      `${join(broken.base, "config.toml")}:2: not valid TOML: Expected ']' to close a table header`,
    );
  });

  test("a rejected key says where it came from", async () => {
    const project = rig.project("key-origin");
    mkdirSync(project.home, { recursive: true });
    writeFileSync(
      join(project.home, "auth.json"),
      `${JSON.stringify({ version: 1, apiKey: "sk-old", savedAt: "2026-01-01T00:00:00Z" })}\n`,
      { mode: 0o600 },
    );
    const { DSH_API_KEY: _, ...env } = project.env;
    rig.server.script(
      { respond: { status: 401, json: { error: { message: "key expired" } } } },
      { respond: { status: 401, json: { error: { message: "key expired" } } } },
    );
    {
      await using pty = spawnPty([rig.binary, "exec", "hi"], { cwd: project.cwd, env });
      expect(await pty.exited).toBe(1);
      expect(plain(pty.output())).toContain(
        `rejected the API key (HTTP 401): key expired; the key was stored by dsh login in ${join(project.home, "auth.json")}: run \`dsh login\` to store one that works`,
      );
    }
    await using pty = spawnPty([rig.binary, "exec", "hi"], project);
    expect(await pty.exited).toBe(1);
    expect(plain(pty.output())).toContain("the key is the one in DSH_API_KEY: fix or unset it");
  });

  test("dsh exec says an approval is not allowed without one, never that the user denied it", async () => {
    const project = rig.project("exec-approval");
    const outside = join(project.base, "outside.txt");
    rig.server.script(
      toolTurn([{ id: "w1", name: "write_file", args: { path: outside, content: "x\n" } }]),
      textTurn("could not"),
    );
    await using pty = spawnPty([rig.binary, "exec", "write outside"], project);
    expect(await pty.exited).toBe(0);
    const said = plain(pty.output());
    expect(said).toContain(
      `! Write ${outside}: not allowed without approval (no one can answer in exec; use --permission or a rule)`,
    );
    expect(said).not.toContain("denied");
    expect(existsSync(outside)).toBe(false);
  });

  test("a retry says its reason once, and the same reason again only in the status line", async () => {
    const project = rig.project("retry");
    const failing = { respond: { status: 500, json: { error: { message: "upstream boom" } } } };
    rig.server.script(failing, failing, textTurn("made it"));
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("hi\r");
    await pty.waitFor("made it");
    await pty.waitFor(TURN_ENDED);
    const rows = pty.transcript().filter((row) => row.includes("upstream boom"));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(
      /^! .* failed \(HTTP 500\), retrying in .* \(try 2 of 4\): upstream boom$/,
    );
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });
});

describe("day-one guards", () => {
  test("in the home directory the chat warns once; with no sandbox the banner says so", async () => {
    const project = rig.project("home-dir");
    await using pty = chatPty(rig, project, {
      cwd: project.env.HOME ?? "",
      env: { DSH_SANDBOX: "none" },
    });
    await pty.waitFor("› ");
    const said = plain(pty.output());
    expect(said.split("dsh is running in your home directory").length - 1).toBe(1);
    expect(said).toContain("! no sandbox: sandboxing is turned off (DSH_SANDBOX=none)");
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });

  test("/permission danger-full-access says what it means and asks first", async () => {
    const project = rig.project("full-access");
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("/permission danger-full-access\r");
    await pty.waitFor("commands run without a sandbox");
    await pty.waitFor("[y/N]");
    pty.type("n");
    await pty.waitFor("permission unchanged");
    const mark = pty.output().length;
    pty.type("/permission danger-full-access\r");
    await pty.waitFor("[y/N]", mark);
    pty.type("y");
    await pty.waitFor("permission: danger-full-access", mark);
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });

  test("grep and glob results say how many matches and files; /compact says the context before and after", async () => {
    const project = rig.project("counts");
    writeFileSync(join(project.cwd, "a.ts"), "// TODO one\n// TODO two\n");
    rig.server.script(
      toolTurn([
        { id: "g1", name: "grep", args: { pattern: "TODO" } },
        { id: "g2", name: "glob", args: { pattern: "*.ts" } },
      ]),
      textTurn(`found them ${"and more words ".repeat(40)}`),
      textTurn("Summary: found the TODOs."),
    );
    await using pty = chatPty(rig, project);
    await pty.waitFor("› ");
    pty.type("find todos\r");
    await pty.waitFor(TURN_ENDED);
    expect(pty.transcript()).toContain("  ✓ 2 matches in 1 file");
    expect(pty.transcript()).toContain("  ✓ 1 file");
    const mark = pty.output().length;
    pty.type("/compact\r");
    await pty.waitFor("context compacted: ", mark);
    expect(plain(pty.since(mark))).toMatch(/context compacted: [\d,]+ → [\d,]+ tokens/);
    pty.type(CTRL_D);
    expect(await pty.exited).toBe(0);
  });

  test("echo PROMPT | dsh exec reads the prompt from standard input", async () => {
    const project = rig.project("piped-prompt");
    const requests = requestsFromNow(rig);
    rig.server.script(textTurn("piped answer"));
    await using pty = spawnPty(
      ["sh", "-c", `echo 'what is piped' | "${rig.binary}" exec`],
      project,
    );
    expect(await pty.exited).toBe(0);
    expect(await requests.lastUserMessage(0)).toBe("what is piped\n");
    expect(plain(pty.output())).toContain("piped answer");
  });
});

test("an approval takes one key, quotes the rule it saves, shows the diff once; /status lists the rule", async () => {
  const project = rig.project("approve");
  const outside = join(project.base, "out", "a.txt");
  mkdirSync(join(project.base, "out"));
  rig.server.script(
    toolTurn([
      { id: "w1", name: "write_file", args: { path: outside, content: "approved-text\n" } },
    ]),
    textTurn("wrote it"),
  );
  await using pty = chatPty(rig, project);
  await pty.waitFor("› ");
  pty.type("write it\r");
  await pty.waitFor("Allow? [y/a/N]");
  expect(plain(pty.output())).toContain(
    `a: always allow: saves the rule "write files in ${join(project.base, "out")}" for ${project.cwd}`,
  );
  pty.type("a");
  await pty.waitFor("wrote it");
  await pty.waitFor(TURN_ENDED);
  expect(readFileSync(outside, "utf8")).toBe("approved-text\n");
  expect(pty.transcript().filter((row) => row.includes("+ approved-text"))).toHaveLength(1);
  const mark = pty.output().length;
  pty.type("/status\r");
  await pty.waitFor("saved rules: ", mark);
  expect(plain(pty.since(mark))).toContain(
    `saved rules: write files in ${join(project.base, "out")}`,
  );
  pty.type(CTRL_D);
  expect(await pty.exited).toBe(0);
});
