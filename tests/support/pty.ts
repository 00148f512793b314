/**
 * A program under a real pseudo-terminal (Bun's PTY): keystrokes in, the bytes it draws out.
 * Tests wait for what appears on the terminal, never for time.
 */

export interface PtyProcess extends AsyncDisposable {
  /** Types into the terminal (raw bytes: "\r" is Enter, "\u0003" is Ctrl-C). */
  type(keys: string): void;
  /** Everything drawn so far, escape sequences included. */
  output(): string;
  /** What was drawn after the `from`-th character of `output()`. */
  since(from: number): string;
  /** Resolves once the output (from `from`) contains `needle`; rejects if the program ends first. */
  waitFor(needle: string, from?: number): Promise<void>;
  readonly exited: Promise<number>;
}

/** Whether Ctrl-C typed at the terminal becomes a SIGINT (needs util-linux's `setsid`). */
export const ptySignals = Bun.which("setsid") !== null;

export interface PtyOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly cols?: number;
  readonly rows?: number;
}

export function spawnPty(argv: readonly string[], options: PtyOptions): PtyProcess {
  let buffer = "";
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
      buffer += decoder.decode(data, { stream: true });
      check();
    },
  });
  // A session of its own with the terminal as its controlling one, as a shell gives it: then
  // Ctrl-C at the terminal is a SIGINT to the program, not just a byte.
  const setsid = Bun.which("setsid");
  const proc = Bun.spawn(setsid === null ? [...argv] : [setsid, "--ctty", ...argv], {
    cwd: options.cwd,
    env: { TERM: "xterm-256color", ...options.env },
    terminal,
  });
  const exited = proc.exited;
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
        // The last bytes may arrive just after the exit is seen.
        queueMicrotask(() => {
          if (!waiters.has(waiter)) return;
          waiters.delete(waiter);
          reject(new Error(`exited without ${JSON.stringify(needle)}:\n${buffer.slice(from)}`));
        });
      });
      return promise;
    },
    exited,
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await exited;
      terminal.close();
    },
  };
}
