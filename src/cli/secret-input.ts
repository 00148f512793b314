/**
 * Reads one secret line: at a terminal with echo off (nothing of it shows, not even its
 * length); piped, the first line of standard input (`echo "$KEY" | dsh login`).
 */

/** The line, or undefined when input ended or the person pressed Ctrl-C / Ctrl-D first. */
export async function readSecret(prompt: (text: string) => void): Promise<string | undefined> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const text = await Bun.stdin.text();
    const line = text.split(/\r?\n/, 1)[0]?.trim();
    return line === undefined || line === "" ? undefined : line;
  }
  prompt("");
  const { promise, resolve } = Promise.withResolvers<string | undefined>();
  let typed = "";
  const onData = (chunk: Buffer) => {
    for (const char of chunk.toString("utf8")) {
      if (char === "\r" || char === "\n") return resolve(typed.trim());
      if (char === "\u0003" || char === "\u0004") return resolve(undefined);
      if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
      else if (char >= " ") typed += char;
    }
  };
  stdin.setRawMode(true);
  stdin.on("data", onData);
  stdin.resume();
  try {
    const line = await promise;
    return line === "" ? undefined : line;
  } finally {
    stdin.off("data", onData);
    stdin.setRawMode(false);
    stdin.pause();
  }
}
