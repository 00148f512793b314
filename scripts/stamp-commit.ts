/**
 * `npm pack` / `npm publish` (prepack): writes the commit into `build-commit.txt`, so the npm
 * package's `dsh --version` names the commit it was packed from, as the binaries do.
 */
import { join } from "node:path";
import { currentCommit } from "./commit.ts";

const root = join(import.meta.dir, "..");
await Bun.write(join(root, "build-commit.txt"), `${currentCommit(root)}\n`);
