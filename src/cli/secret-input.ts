/**
 * Reads one line typed at the terminal, with echo or hidden (for a key: nothing of it shows,
 * not even its length); piped, the first line of standard input (`echo "$KEY" | dsh login`).
 */

export interface ReadLineOptions {
  /** Show what is typed. */
  readonly echo: boolean;
  readonly write: (text: string) => void;
}

/** The line, or undefined when input ended or the person pressed Ctrl-C / Ctrl-D first. */
export async function readTerminalLine(options: ReadLineOptions): Promise<string | undefined> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const text = await Bun.stdin.text();
    const line = text.split(/\r?\n/, 1)[0]?.trim();
    return line === undefined || line === "" ? undefined : line;
  }
  const { promise, resolve } = Promise.withResolvers<string | undefined>();
  let typed = "";
  const onData = (chunk: Buffer) => {
    for (const char of chunk.toString("utf8")) {
      if (char === "\r" || char === "\n") return resolve(typed.trim());
      if (char === "\u0003" || char === "\u0004") return resolve(undefined);
      if (char === "\u007f" || char === "\b") {
        if (options.echo && typed.length > 0) options.write("\b \b");
        typed = typed.slice(0, -1);
      } else if (char >= " ") {
        typed += char;
        if (options.echo) options.write(char);
      }
    }
  };
  stdin.setRawMode(true);
  stdin.on("data", onData);
  stdin.resume();
  try {
    return await promise;
  } finally {
    stdin.off("data", onData);
    stdin.setRawMode(false);
    stdin.pause();
  }
}

/** A hidden line (an API key). */
export function readSecret(write: (text: string) => void): Promise<string | undefined> {
  return readTerminalLine({ echo: false, write }).then((line) => (line === "" ? undefined : line));
}
