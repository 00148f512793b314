/** Reads a session's log the way the store validates it, without opening a writer or its lock. */
import { sessionPath } from "../../src/session/ids.ts";
import { parseLog } from "../../src/session/parse-log.ts";

/**
 * The header and events of `<home>/sessions/<id>.jsonl`, validated line by line (a torn last
 * line is dropped). Rejects as the store does for a bad line; a missing file rejects too.
 */
export async function readSessionLog(home: string, id: string) {
  const path = sessionPath(home, id);
  const parsed = parseLog(await Bun.file(path).bytes(), path, id);
  return { header: parsed.header, events: parsed.events };
}
