/**
 * The release targets: one entry per prebuilt binary, with the names each consumer uses for
 * it (Bun's compile target, the archive, the ACP registry's platform key, Homebrew's OS/CPU).
 * The one list `build:all`, the install scripts' tests, the formula and the registry entry
 * are generated from.
 */

export interface ReleaseTarget {
  /** Our name, as in `dsh-<name>` (interface.md). */
  readonly name: string;
  /** `bun build --compile --target=...`. */
  readonly bunTarget: string;
  readonly os: "linux" | "darwin" | "windows";
  readonly cpu: "x64" | "arm64";
  /** glibc or musl; only Linux builds have the musl variant. */
  readonly libc?: "musl";
  /** The ACP registry's platform key (`<os>-<arch>`); none for builds it has no slot for. */
  readonly registry?: string;
  readonly archive: "tar.gz" | "zip";
  /** The executable's file name inside the archive (at its root). */
  readonly executable: string;
}

const unix = (
  name: string,
  bunTarget: string,
  os: "linux" | "darwin",
  cpu: "x64" | "arm64",
  registry: string | undefined,
  libc?: "musl",
): ReleaseTarget => ({
  name,
  bunTarget,
  os,
  cpu,
  ...(libc === undefined ? {} : { libc }),
  ...(registry === undefined ? {} : { registry }),
  archive: "tar.gz",
  executable: "dsh",
});

/** Every target, in the order they are built. */
export const TARGETS: readonly ReleaseTarget[] = [
  unix("linux-x64", "bun-linux-x64", "linux", "x64", "linux-x86_64"),
  unix("linux-arm64", "bun-linux-arm64", "linux", "arm64", "linux-aarch64"),
  unix("linux-x64-musl", "bun-linux-x64-musl", "linux", "x64", undefined, "musl"),
  unix("linux-arm64-musl", "bun-linux-arm64-musl", "linux", "arm64", undefined, "musl"),
  unix("darwin-x64", "bun-darwin-x64", "darwin", "x64", "darwin-x86_64"),
  unix("darwin-arm64", "bun-darwin-arm64", "darwin", "arm64", "darwin-aarch64"),
  {
    name: "windows-x64",
    bunTarget: "bun-windows-x64",
    os: "windows",
    cpu: "x64",
    registry: "windows-x86_64",
    archive: "zip",
    executable: "dsh.exe",
  },
];

/** `dsh-<name>.tar.gz` or `.zip`. */
export function archiveName(target: ReleaseTarget): string {
  return `dsh-${target.name}.${target.archive}`;
}
