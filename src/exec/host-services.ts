/**
 * Host services reachable through Unix sockets on the read-only root: seccomp lets AF_UNIX
 * through and a socket on a read-only mount still accepts connections. A session bus runs
 * `systemd-run --user`, the Docker socket is root, agents sign with the user's keys; each is
 * code or authority outside the sandbox, so the sandbox replaces them before anything else.
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Mask } from "./guards.ts";
import { isWithin, realpathOrUndefined } from "./guards.ts";

/** Every user's runtime directory (session bus, gpg and ssh agents, pipewire, ...). */
export const RUNTIME_ROOT = "/run/user";

/** Service directories and sockets under `/run` (and `/var/run` where it is a real directory). */
const SERVICES = [
  "dbus",
  "docker.sock",
  "docker",
  "podman",
  "containerd",
  "crio",
  "buildkit",
  "libvirt",
  "lxd",
  "incus",
  "snapd.socket",
  "snapd-snap.socket",
  "systemd/private",
];

/**
 * What to replace, realpath'd and without duplicates: `/run/user`, the parent's runtime
 * directory when it lies elsewhere, and the service sockets that exist. Directories become
 * private tmpfs mounts, other paths `/dev/null`.
 */
export function hostServiceMasks(runtimeDir: string | undefined): Mask[] {
  const masks: Mask[] = [];
  const add = (path: string) => {
    const real = realpathOrUndefined(path);
    if (real === undefined || real === "/") return;
    if (masks.some((mask) => mask.type === "dir" && isWithin(mask.path, real))) return;
    const type = statSync(real).isDirectory() ? "dir" : "file";
    masks.push({ type, path: real });
  };
  add(RUNTIME_ROOT);
  if (runtimeDir !== undefined && isAbsolute(runtimeDir)) add(runtimeDir);
  for (const base of ["/run", "/var/run"]) {
    for (const name of SERVICES) add(`${base}/${name}`);
  }
  return masks;
}
