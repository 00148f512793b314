/**
 * Host services reachable through Unix sockets on the read-only root: seccomp lets AF_UNIX
 * through and a socket on a read-only mount still accepts connections. A session bus runs
 * `systemd-run --user`, the Docker socket is root, agents sign with the user's keys; each is
 * code or authority outside the sandbox, so the sandbox replaces them before anything else.
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Mask } from "./guards.ts";
import { isWithin, realpathOrUndefined } from "../paths.ts";

/** Where service sockets live on a host (`/var/run` is usually a link to `/run`). */
export const SERVICE_ROOTS: readonly string[] = ["/run", "/var/run"];

/**
 * Service directories and sockets under each of the service roots; `user` holds every user's
 * runtime directory (session bus, gpg and ssh agents, pipewire, ...).
 */
const SERVICES = [
  "user",
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
 * What to replace, realpath'd and without duplicates: the parent's runtime directory, and the
 * runtime directories (`/run/user`) and service sockets that exist under `roots`. Directories become
 * private tmpfs mounts, other paths `/dev/null`.
 */
export function hostServiceMasks(
  runtimeDir: string | undefined,
  roots: readonly string[] = SERVICE_ROOTS,
): Mask[] {
  const masks: Mask[] = [];
  const add = (path: string) => {
    const real = realpathOrUndefined(path);
    if (real === undefined || real === "/") return;
    if (masks.some((mask) => mask.type === "dir" && isWithin(mask.path, real))) return;
    const type = statSync(real).isDirectory() ? "dir" : "file";
    masks.push({ type, path: real });
  };
  if (runtimeDir !== undefined && isAbsolute(runtimeDir)) add(runtimeDir);
  for (const base of roots) {
    for (const name of SERVICES) add(`${base}/${name}`);
  }
  return masks;
}
