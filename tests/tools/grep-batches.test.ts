// grep over trees larger than one batch of its search threads: every file, in every batch, is
// still checked by what was opened, and the results keep walk order.
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { secretMatch, secretPlacesOf } from "../../src/file-safety/credential-paths.ts";
import { createGrepTool } from "../../src/tools/grep.ts";
import { makeSandbox, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

const SECRET = "sk-batch-secret-value";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box[Symbol.dispose]());

/** Writes `count` files spread over nested directories, each holding `line`. */
function plantTree(count: number, line: (index: number) => string): void {
  for (let index = 0; index < count; index++) {
    const name = String(index).padStart(4, "0");
    box.write(`t${name.slice(0, 2)}/s${name.slice(2, 3)}/f${name}.txt`, `${line(index)}\n`);
  }
}

test("a store's file hard-linked deep in a large tree is never searched, in any batch", async () => {
  fs.mkdirSync(path.join(box.home, ".aws"));
  const credentials = path.join(box.home, ".aws", "credentials");
  fs.writeFileSync(credentials, `${SECRET}\n`);
  plantTree(1200, (index) => `plain ${index}`);
  // Links in the first directory and far past the first batches of files.
  for (const where of ["t00/s0/a-link.txt", "t09/s5/m-link.txt", "t11/s9/z-link.txt"]) {
    fs.linkSync(credentials, path.join(box.root, where));
  }
  const grep = createGrepTool({ secrets: secretPlacesOf({ home: box.home }) });
  const secret = await grep.execute({ pattern: SECRET }, toolContext(box.root));
  expect(secret.output).toBe(`No matches for /${SECRET}/ in . (1200 files searched)`);
  const plain = await grep.execute({ pattern: "plain 11[0-9][0-9]$" }, toolContext(box.root));
  expect(plain.output.split("\n")).toEqual(
    Array.from({ length: 100 }, (_, i) => {
      const name = String(1100 + i);
      return `t${name.slice(0, 2)}/s${name.slice(2, 3)}/f${name}.txt:1:plain ${name}`;
    }),
  );
});

test("matches from many batches come back in walk order up to the cap", async () => {
  plantTree(900, (index) => `hit ${index}`);
  const grep = createGrepTool({ secrets: secretPlacesOf({ home: box.home }) });
  const result = await grep.execute({ pattern: "^hit" }, toolContext(box.root));
  const lines = result.output.split("\n");
  expect(lines.slice(0, 200)).toEqual(
    Array.from({ length: 200 }, (_, i) => {
      const name = String(i).padStart(4, "0");
      return `t${name.slice(0, 2)}/s${name.slice(2, 3)}/f${name}.txt:1:hit ${i}`;
    }),
  );
  expect(lines[200]).toStartWith("[stopped at 200 matches");
});

test("a store is matched by path however its path is spelled", () => {
  fs.mkdirSync(path.join(box.home, ".ssh"));
  const places = secretPlacesOf({ home: box.home });
  const ssh = path.join(box.home, ".ssh");
  const home = path.basename(box.home);
  for (const spelling of [
    `${ssh}/id_rsa`,
    `${box.home}/./.ssh/id_rsa`,
    `${box.home}//.ssh/id_rsa`,
    `${box.root}/../${home}/.ssh/id_rsa`,
    `${ssh}/`,
    `${ssh}/keys/..`,
  ]) {
    expect({ spelling, place: secretMatch(spelling, places)?.place }).toEqual({
      spelling,
      place: ssh,
    });
  }
  expect(secretMatch(`${box.root}/.ssh/id_rsa`, places)).toBeUndefined();
  expect(secretMatch(`${ssh}-not/id_rsa`, places)).toBeUndefined();
});

test("each file is searched alone, up to exactly 2 MiB: nothing of the file read before it", async () => {
  const limit = 2 * 1024 * 1024;
  // In walk order: a file at the limit whose match lies past where the next file ends, then
  // a short one, then one byte over the limit.
  box.write("a-at-limit.txt", `${"a".repeat(limit - 12)}\nneedle here`);
  box.write("b-short.txt", "short\n");
  box.write("c-over-limit.txt", `${"a".repeat(limit)}\n`);
  box.write("d-empty.txt", "");
  const grep = createGrepTool({ secrets: secretPlacesOf({ home: box.home }) });
  const needle = await grep.execute({ pattern: "needle|^a{3}" }, toolContext(box.root));
  expect(needle.output).toBe(
    `a-at-limit.txt:1:${"a".repeat(500)}…\na-at-limit.txt:2:needle here\n[skipped 1 file over 2 MiB]`,
  );
  expect(fs.statSync(path.join(box.root, "a-at-limit.txt")).size).toBe(limit);
  const short = await grep.execute({ pattern: "^short$" }, toolContext(box.root));
  expect(short.output).toBe("b-short.txt:1:short\n[skipped 1 file over 2 MiB]");
});
