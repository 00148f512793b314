/**
 * What `dsh --version` prints: the version, the commit it was built from, and a line naming
 * this product, since another program installs a `dsh` too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };

/** Replaced by `bun build --define` in compiled binaries (scripts/build.ts). */
declare const DSH_BUILD_COMMIT: string | undefined;

export const VERSION: string = pkg.version;

/** `dsh 0.2.0 (abc1234)` plus the product line. */
export function versionText(): string {
  return `dsh ${VERSION} (${buildCommit()})\nthe dsh coding agent (ACP for editors, chat and exec for the terminal): ${repository()}\n`;
}

function buildCommit(): string {
  if (typeof DSH_BUILD_COMMIT === "string") return DSH_BUILD_COMMIT;
  // The npm package carries the commit it was packed from; a checkout has none.
  try {
    return readFileSync(join(import.meta.dir, "..", "..", "build-commit.txt"), "utf8").trim();
  } catch {
    return "source";
  }
}

function repository(): string {
  return pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
}
