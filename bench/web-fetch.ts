/**
 * What `web_fetch` costs on a 1 MB documentation page (`lib/docs-html.ts`) served on this
 * machine: one call, fetch and conversion to Markdown, warm and first in a process (which loads
 * the HTTP client and the converter), against the floor of a bare `fetch` of the same page read
 * to its end in the same process; and the converter's first use alone. Fresh processes of a
 * fixture compiled with the project's flags, since the converter loads once per process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../scripts/build.ts";
import { docsPage } from "./lib/docs-html.ts";
import { emit, size } from "./lib/figures.ts";
import { median, report } from "./stats.ts";

const PROCESSES = size(10, 2);
const WARM = size(10, 2);
const page = docsPage(1024 * 1024);
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
});
const url = `http://127.0.0.1:${server.port}/std/vec/struct.Vec.html`;
const root = mkdtempSync(join(tmpdir(), "dsh-bench-web-"));
try {
  const fixture = join(root, "web-fetch");
  await compile(join(import.meta.dir, "fixtures", "web-fetch.ts"), fixture);
  const run = async (...args: string[]) => {
    const proc = Bun.spawn([fixture, ...args], { stderr: "inherit" });
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0) throw new Error("the web-fetch fixture failed");
    return JSON.parse(out);
  };
  const first: number[] = [];
  const warm: number[] = [];
  const floor: number[] = [];
  const load: number[] = [];
  let chars = 0;
  for (let i = 0; i < PROCESSES; i++) {
    const calls = (await run(url, String(WARM))) as {
      first: number;
      warm: number[];
      chars: number;
    };
    first.push(calls.first);
    warm.push(median(calls.warm));
    chars = calls.chars;
    for (let j = 0; j < WARM; j++) {
      const start = performance.now();
      await (await fetch(url)).arrayBuffer();
      floor.push(performance.now() - start);
    }
    load.push(((await run("load")) as { load: number }).load);
  }
  console.log(
    `page: ${page.length.toLocaleString("en-US")} bytes of HTML, result ${chars.toLocaleString("en-US")} characters`,
  );
  report("web_fetch of the page, warm", warm);
  report("web_fetch of the page, first in a process", first);
  report("bare fetch of the page", floor);
  report("the converter's first use (import and compile)", load);
  emit([
    {
      name: "web_fetch of a 1 MB HTML page, warm (fetch + Markdown)",
      unit: "ms",
      samples: warm,
      floor,
    },
    { name: "web_fetch of a 1 MB HTML page, first in a process", unit: "ms", samples: first },
    { name: "HTML converter, first use in a process", unit: "ms", samples: load },
  ]);
} finally {
  await server.stop(true);
  rmSync(root, { recursive: true, force: true });
}
