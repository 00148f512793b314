/**
 * Paths below a workspace as the kernel has them: a list of components, each bytes ending in a
 * NUL. Only some of them can be named by a JavaScript string (what bwrap, git and the logs take):
 * UTF-8 throughout and within PATH_MAX. The others are shown with each byte that is not UTF-8
 * as `\xNN`.
 */
import { relative, sep } from "node:path";

/** The longest path the kernel resolves in one call, its NUL included. */
const PATH_MAX = 4096;

/** A path below a workspace. */
export interface BytePath {
  /** Its components below the workspace, each ending in a NUL. */
  readonly parts: readonly Uint8Array[];
  /** The path as text: exact when `nameable`, else shown with `\xNN` for bytes not UTF-8. */
  readonly path: string;
  /** Whether `path` names it exactly and fits PATH_MAX. */
  readonly nameable: boolean;
  /** Tells paths apart: `path` when nameable, else a form no real path has (it holds a NUL). */
  readonly key: string;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** `parts` below `workspace`, named. */
export function bytePath(workspace: string, parts: readonly Uint8Array[]): BytePath {
  let path = workspace;
  let utf8 = true;
  let bytes = encoder.encode(workspace).length + 1;
  for (const part of parts) {
    const name = part.subarray(0, -1);
    const text = decodeOrUndefined(name);
    utf8 &&= text !== undefined;
    path += `/${text ?? shown(name)}`;
    bytes += part.length;
  }
  const nameable = utf8 && bytes <= PATH_MAX;
  const key = nameable ? path : `\0${parts.map((part) => latin1(part)).join("")}`;
  return { parts, path, nameable, key };
}

/** The components of `path` (a path below `workspace`, as text). */
export function partsBelow(workspace: string, path: string): Uint8Array[] {
  const rel = relative(workspace, path);
  return rel === "" ? [] : rel.split(sep).map((part) => encoder.encode(`${part}\0`));
}

function decodeOrUndefined(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function shown(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) {
    text +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, "0")}`;
  }
  return text;
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}
