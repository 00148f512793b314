/**
 * The real sandbox for the security suites (see `tests/support/sandbox-gate.ts`), and host
 * markers that prove a side effect did not happen.
 */
import { existsSync, rmSync } from "node:fs";

export {
  DENIED,
  bwrapOnly,
  bwrapOnlySerial,
  denials,
  expectRefusedOrRemoved,
  sandboxStatus,
  sandboxTest,
  seatbeltOnly,
  underSeatbelt,
} from "../support/sandbox-gate.ts";

/** A host path a failed sandbox would create; `leftovers()` removes any and reports them. */
export function hostMarkers(): { path(dir: string): string; leftovers(): string[] } {
  const made: string[] = [];
  return {
    path(dir) {
      const path = `${dir}/dsh_t_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
      made.push(path);
      return path;
    },
    leftovers() {
      const found = made.filter((path) => existsSync(path));
      for (const path of found) rmSync(path, { force: true });
      return found;
    },
  };
}
