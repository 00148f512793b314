/**
 * The background-server case of the `bash` tool for end-to-end suites: the model starts a
 * Python HTTP server with `run_in_background` (it becomes `bg-1`), then a second `bash` call
 * waits until it answers and prints `reached`.
 */
import { type ScriptedTurn, toolTurn } from "./model-server.ts";

export function backgroundServer(
  python: string,
  port: number,
): { readonly server: string; readonly turns: ScriptedTurn[] } {
  const server = `${python} -m http.server ${port} --bind 127.0.0.1`;
  const reach =
    `for i in $(seq 200); do curl -sf http://127.0.0.1:${port}/ >/dev/null && ` +
    "echo reached && break; sleep 0.05; done";
  return {
    server,
    turns: [
      toolTurn([{ id: "b1", name: "bash", args: { command: server, run_in_background: true } }]),
      toolTurn([{ id: "b2", name: "bash", args: { command: reach } }]),
    ],
  };
}
