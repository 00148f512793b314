/**
 * The part of the Seatbelt profile every command gets, whatever its workspace: processes may
 * fork, exec and signal only their own sandbox, read files (the workspace's rules and the
 * credential stores come after, in `seatbelt.ts`), and reach a short list of system services.
 *
 * What is listed and why (facts from Chrome's, Codex's and sandbox-runtime's macOS policies,
 * none of their text): `mach-host*` for `host_processor_info` and `host_statistics`, which
 * Node's and Bun's `os.cpus()` and `os.freemem()` call; `user-preference-read` for
 * CFPreferences, which npm, yarn and Xcode's tools read at start; sysctls that say what the
 * machine and the OS are (`hw.*`, `kern.os*`, `machdep.cpu.*`) and what a process knows of
 * itself (`kern.proc.pid.*`), never `kern.procargs2` (another process's argv and environment)
 * or `kern.proc.all` (every process of the machine). The keychain's services
 * (`com.apple.SecurityServer`, `com.apple.securityd.xpc`) are never reachable, so
 * `security find-generic-password -w`, `git credential-osxkeychain` and Docker's credential
 * helper find nothing; `com.apple.trustd.agent`, which evaluates certificates for TLS and
 * holds no secret, only when the command has dsh's proxy.
 */

/** Sysctls read by name. */
const SYSCTL_NAMES = [
  "hw.activecpu",
  "hw.busfrequency_compat",
  "hw.byteorder",
  "hw.cacheconfig",
  "hw.cachelinesize_compat",
  "hw.cpufamily",
  "hw.cpufrequency",
  "hw.cpufrequency_compat",
  "hw.cputype",
  "hw.l1dcachesize_compat",
  "hw.l1icachesize_compat",
  "hw.l2cachesize_compat",
  "hw.l3cachesize_compat",
  "hw.logicalcpu",
  "hw.logicalcpu_max",
  "hw.machine",
  "hw.memsize",
  "hw.model",
  "hw.ncpu",
  "hw.nperflevels",
  "hw.packages",
  "hw.pagesize",
  "hw.pagesize_compat",
  "hw.physicalcpu",
  "hw.physicalcpu_max",
  "hw.tbfrequency_compat",
  "hw.vectorunit",
  "kern.argmax",
  "kern.boottime",
  "kern.hostname",
  "kern.maxfilesperproc",
  "kern.maxproc",
  "kern.maxprocperuid",
  "kern.ngroups",
  "kern.osproductversion",
  "kern.osrelease",
  "kern.ostype",
  "kern.osvariant_status",
  "kern.osversion",
  "kern.secure_kernel",
  "kern.usrstack64",
  "kern.version",
  "machdep.cpu.brand_string",
  "sysctl.proc_cputype",
  "vm.loadavg",
];

/** Sysctls read by prefix: CPU features and levels, a process's own entries, interfaces. */
const SYSCTL_PREFIXES = [
  "hw.optional.",
  "hw.perflevel",
  "kern.proc.pgrp.",
  "kern.proc.pid.",
  "machdep.cpu.",
  "net.routetable.",
];

/** Mach services every command may look up: user and group names, notify(3), the log. */
const MACH_SERVICES = [
  "com.apple.system.opendirectoryd.libinfo",
  "com.apple.system.notification_center",
  "com.apple.system.logger",
];

/** The service that evaluates TLS certificates, for commands that reach dsh's proxy. */
export const TRUST_SERVICE = "com.apple.trustd.agent";

const quoted = (names: readonly string[], filter: string) =>
  names.map((name) => `  (${filter} "${name}")`).join("\n");

/** The base profile; `trust` adds the certificate service (the command has a proxy). */
export function seatbeltBase(trust: boolean): string {
  const services = trust ? [...MACH_SERVICES, TRUST_SERVICE] : MACH_SERVICES;
  return `(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow mach-host*)
(allow user-preference-read)
(allow file-read*)
(allow file-ioctl (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))
(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty")
  (literal "/dev/stdout") (literal "/dev/stderr") (regex #"^/dev/fd/[0-9]+$"))
(allow pseudo-tty)
(allow ipc-posix-sem ipc-posix-shm-read-data ipc-posix-shm-write-data)
(allow sysctl-read
${quoted(SYSCTL_NAMES, "sysctl-name")}
${quoted(SYSCTL_PREFIXES, "sysctl-name-prefix")})
(allow sysctl-write (sysctl-name "kern.grade_cputype"))
(allow mach-lookup
${quoted(services, "global-name")})`;
}
