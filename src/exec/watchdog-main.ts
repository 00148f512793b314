/**
 * `dsh __watchdog`: the process that ends what dsh started when dsh ends, however it ends,
 * where the kernel has no parent-death signal (macOS). dsh starts it once, outside any sandbox,
 * in a session of its own, and tells it over fd 3 what to end: a process group (`g+ PGID`,
 * `g- PGID`) or a command's sandbox (`s+ DIR`, `s- DIR`, by the command's temp directory,
 * `sandbox-sweep.ts`). When fd 3 reaches its end, dsh is gone: each group still held is
 * SIGKILLed and each sandbox still held is swept, then the watchdog exits. Sandboxed commands
 * cannot signal it (their profile lets them signal only their own sandbox).
 */
import { readSync } from "node:fs";
import { sweepSandbox } from "./sandbox-sweep.ts";
import type { ProcessCalls } from "./sandbox-sweep.ts";

const CONTROL_FD = 3;

/** What the watchdog holds, changed one control line at a time. */
export interface WatchdogState {
  readonly groups: Set<number>;
  readonly sandboxes: Set<string>;
}

/** Applies one control line; an unknown line is ignored. */
export function applyControlLine(state: WatchdogState, line: string): void {
  const kind = line.slice(0, 2);
  const value = line.slice(3);
  if (kind === "g+" || kind === "g-") {
    const pgid = Number(value);
    if (!Number.isInteger(pgid) || pgid <= 1) return;
    if (kind === "g+") state.groups.add(pgid);
    else state.groups.delete(pgid);
  } else if (kind === "s+" && value.startsWith("/")) state.sandboxes.add(value);
  else if (kind === "s-") state.sandboxes.delete(value);
}

/** Ends everything `state` holds. Never throws. */
export function endHeld(state: WatchdogState, calls: ProcessCalls | undefined): void {
  for (const pgid of state.groups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  if (calls === undefined) return;
  for (const marker of state.sandboxes) sweepSandbox(marker, { calls, withinMs: 5_000 });
}

/** Runs the watchdog until dsh is gone. */
export async function runWatchdog(): Promise<number> {
  const calls = await loadCalls();
  const state: WatchdogState = { groups: new Set(), sandboxes: new Set() };
  const buffer = Buffer.alloc(4096);
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    let read: number;
    try {
      read = readSync(CONTROL_FD, buffer, 0, buffer.length, null);
    } catch (error) {
      // A non-blocking descriptor with nothing to read yet: wait a little, then read again.
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Bun.sleepSync(10);
        continue;
      }
      read = 0;
    }
    if (read === 0) break;
    pending += decoder.decode(buffer.subarray(0, read), { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) applyControlLine(state, line);
  }
  endHeld(state, calls);
  return 0;
}

async function loadCalls(): Promise<ProcessCalls | undefined> {
  if (process.platform !== "darwin") return undefined;
  try {
    const { darwinCalls } = await import("./darwin-calls.ts");
    return darwinCalls(await import("bun:ffi"));
  } catch {
    return undefined;
  }
}
