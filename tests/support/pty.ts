/**
 * A program under a real pseudo-terminal (Bun's PTY): keystrokes in, the bytes it draws out.
 * Tests wait for what appears on the terminal, never for time.
 *
 * The program runs under `sh`, which prints a marker with its exit status once it has ended:
 * the terminal delivers bytes in order, so when the marker arrives, everything the program
 * drew has arrived too (the process's exit alone says nothing about bytes still in flight).
 * What is drawn also feeds a virtual terminal, for tests about what the screen shows.
 */
import { createVirtualTerminal } from "./vt.ts";

export interface PtyProcess extends AsyncDisposable {
  /** Types into the terminal (raw bytes: "\r" is Enter, "\u0003" is Ctrl-C). */
  type(keys: string): void;
  /** Everything drawn so far, escape sequences included (the exit marker left out). */
  output(): string;
  /** What was drawn after the `from`-th character of `output()`. */
  since(from: number): string;
  /** Resolves once the output (from `from`) contains `needle`; rejects if the program ends first. */
  waitFor(needle: string, from?: number): Promise<void>;
  /** The rows a person sees now: a virtual terminal's, fed with everything drawn. */
  screen(): string[];
  /** Every row drawn so far, scrolled-off ones included. */
  transcript(): string[];
  /**
   * Resolves once `holds` is true of the visible rows (checked as output arrives); rejects
   * with `what` and the screen if the program ends first.
   */
  waitForScreen(holds: (rows: string[]) => boolean, what: string): Promise<void>;
  /** The program's exit status, once all it drew has been read. */
  readonly exited: Promise<number>;
}

export interface PtyOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly cols?: number;
  readonly rows?: number;
}

/** Whether Ctrl-C typed at the terminal becomes a SIGINT (needs util-linux's `setsid`). */
export const ptySignals = Bun.which("setsid") !== null;

const MARKER = /\r?\n<<pty-exit:(\d+)>>\r?\n/;
// A no-op trap, not an ignored signal: the program gets SIGINT's default back at exec.
const WRAPPER = `trap ':' INT; "$0" "$@"; s=$?; printf '\\n<<pty-exit:%s>>\\n' "$s"; exit "$s"`;

export function spawnPty(argv: readonly string[], options: PtyOptions): PtyProcess {
  let buffer = "";
  const vt = createVirtualTerminal(options.cols ?? 100, options.rows ?? 40);
  const screenWaiters = new Set<{ holds: (rows: string[]) => boolean; resolve: () => void }>();
  /** How much of the output the virtual terminal has seen: it is fed only when asked about. */
  let fed = 0;
  const feed = () => {
    vt.write(buffer.slice(fed));
    fed = buffer.length;
  };
  let code: number | undefined;
  const ended = Promise.withResolvers<number>();
  const decoder = new TextDecoder();
  const waiters = new Set<{ needle: string; from: number; resolve: () => void }>();
  const check = () => {
    for (const waiter of waiters) {
      if (buffer.indexOf(waiter.needle, waiter.from) !== -1) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };
  const terminal = new Bun.Terminal({
    cols: options.cols ?? 100,
    rows: options.rows ?? 40,
    name: "xterm-256color",
    data(_term, data) {
      if (code !== undefined) return;
      const before = buffer.length;
      buffer += decoder.decode(data, { stream: true });
      // Only the new bytes (and a marker's length before them) can complete the marker.
      const scan = Math.max(0, before - 40);
      const marker = MARKER.exec(buffer.slice(scan));
      if (marker !== null) {
        buffer = buffer.slice(0, scan + marker.index);
        code = Number(marker[1]);
      }
      check();
      if (screenWaiters.size > 0) feed();
      for (const waiter of screenWaiters) {
        if (!waiter.holds(vt.screen())) continue;
        screenWaiters.delete(waiter);
        waiter.resolve();
      }
      if (code !== undefined) ended.resolve(code);
    },
  });
  // A session of its own with the terminal as its controlling one, as a shell gives it: then
  // Ctrl-C at the terminal is a SIGINT to the program, not just a byte.
  const setsid = Bun.which("setsid");
  const wrapped = ["sh", "-c", WRAPPER, ...argv];
  const proc = Bun.spawn(setsid === null ? wrapped : [setsid, "--ctty", ...wrapped], {
    cwd: options.cwd,
    env: { TERM: "xterm-256color", ...options.env },
    terminal,
  });
  // A shell that ended on its own wrote the marker first, and it is on its way. Only a shell
  // killed before it (by a signal) never sends one.
  void proc.exited.then((status) => {
    if (proc.signalCode !== null) ended.resolve(code ?? status);
  });
  const exited = ended.promise;
  return {
    type: (keys) => void terminal.write(keys),
    output: () => buffer,
    since: (from) => buffer.slice(from),
    waitFor(needle, from = 0) {
      if (buffer.indexOf(needle, from) !== -1) return Promise.resolve();
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      const waiter = { needle, from, resolve };
      waiters.add(waiter);
      void exited.then(() => {
        if (!waiters.delete(waiter)) return;
        reject(new Error(`exited without ${JSON.stringify(needle)}:\n${buffer.slice(from)}`));
      });
      return promise;
    },
    screen: () => {
      feed();
      return vt.screen();
    },
    transcript: () => {
      feed();
      return vt.lines();
    },
    waitForScreen(holds, what) {
      feed();
      if (holds(vt.screen())) return Promise.resolve();
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      const waiter = { holds, resolve };
      screenWaiters.add(waiter);
      void exited.then(() => {
        if (!screenWaiters.delete(waiter)) return;
        reject(new Error(`exited before the screen showed ${what}:\n${vt.screen().join("\n")}`));
      });
      return promise;
    },
    exited,
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null) {
        try {
          // The shell and the program share the group `setsid` made.
          process.kill(setsid === null ? proc.pid : -proc.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await proc.exited;
      terminal.close();
    },
  };
}
