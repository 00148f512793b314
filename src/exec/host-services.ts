/**
 * Host services reachable through Unix sockets on the read-only root: seccomp lets AF_UNIX
 * through and a socket on a read-only mount still accepts connections. A session bus runs
 * `systemd-run --user`, the Docker socket is root, agents sign with the user's keys; each is
 * code or authority outside the sandbox, so the sandbox leaves them out before anything else.
 *
 * A service root (`/run`) is rebuilt rather than masked path by path: a private tmpfs, every
 * other entry bound back read-only (`--ro-bind-try`, so an entry that vanished meanwhile is
 * skipped) or linked back, the services' directories as empty private tmpfs dirs, and the root
 * then made read-only. Nothing needs a service's path to still exist when the sandbox mounts
 * (a socket removed by a restarting daemon used to make bwrap fail), and nothing is created
 * on the host.
 */
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { isWithin, realpathOrUndefined } from "./guards.ts";

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

/** One step of the rebuilt view, in bwrap's order. */
export type ServiceStep =
  | { readonly type: "tmpfs"; readonly path: string }
  | { readonly type: "bind"; readonly path: string }
  | { readonly type: "link"; readonly path: string; readonly target: string }
  | { readonly type: "remount-ro"; readonly path: string };

/**
 * The steps that rebuild each service root without its services, then hide the parent's
 * runtime directory (a private tmpfs) unless that is hidden already. Roots are realpath'd and
 * taken once; a missing root is skipped.
 */
export function hostServiceSteps(
  runtimeDir: string | undefined,
  roots: readonly string[] = SERVICE_ROOTS,
): ServiceStep[] {
  const steps: ServiceStep[] = [];
  const rebuilt: string[] = [];
  for (const root of roots) {
    const real = realpathOrUndefined(root);
    if (real === undefined || real === "/" || rebuilt.includes(real)) continue;
    if (lstatSync(real, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    rebuilt.push(real);
    rebuild(real, SERVICES, steps);
  }
  const runtime =
    runtimeDir !== undefined && isAbsolute(runtimeDir)
      ? realpathOrUndefined(runtimeDir)
      : undefined;
  const hidden = hiddenServicePaths(undefined, roots);
  if (runtime !== undefined && runtime !== "/" && !hidden.some((path) => isWithin(path, runtime))) {
    steps.push({ type: "tmpfs", path: runtime });
  }
  return steps;
}

/** Every path the sandbox hides under the service roots, and the parent's runtime directory. */
export function hiddenServicePaths(
  runtimeDir: string | undefined,
  roots: readonly string[] = SERVICE_ROOTS,
): string[] {
  const hidden: string[] = [];
  for (const root of roots) {
    const real = realpathOrUndefined(root);
    if (real !== undefined && real !== "/")
      hidden.push(...SERVICES.map((name) => join(real, name)));
  }
  const runtime =
    runtimeDir !== undefined && isAbsolute(runtimeDir)
      ? realpathOrUndefined(runtimeDir)
      : undefined;
  if (runtime !== undefined && runtime !== "/") hidden.push(runtime);
  return [...new Set(hidden)];
}

/** `dir` as a private tmpfs holding its entries except `hidden` (names, or `a/b` paths). */
function rebuild(dir: string, hidden: readonly string[], steps: ServiceStep[]): void {
  steps.push({ type: "tmpfs", path: dir });
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  for (const name of names) {
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    if (hidden.includes(name)) {
      // A directory stays, empty: a workspace may lie below it (`/run/user/1000/project`).
      if (stat.isDirectory()) steps.push({ type: "tmpfs", path });
      continue;
    }
    const nested = hidden
      .filter((entry) => entry.startsWith(`${name}/`))
      .map((entry) => entry.slice(name.length + 1));
    if (stat.isSymbolicLink()) steps.push({ type: "link", path, target: readTarget(path) });
    else if (nested.length > 0 && stat.isDirectory()) rebuild(path, nested, steps);
    else steps.push({ type: "bind", path });
  }
  steps.push({ type: "remount-ro", path: dir });
}

function readTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "/nonexistent";
  }
}
