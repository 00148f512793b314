/**
 * `dsh exec` and `dsh chat` have no shutdown of their own for SIGTERM and SIGHUP, whose
 * default action ends the process without running anything. Exiting instead runs the
 * command runner's exit hook, which kills every command still running and waits until each
 * is gone, so none outlives dsh. (`dsh acp` shuts down gracefully on these signals itself.)
 */

const EXIT_CODES = { SIGTERM: 143, SIGHUP: 129 } as const;

/** Makes SIGTERM and SIGHUP exit the process (128 + signal number) through its exit hooks. */
export function exitOnTermination(): void {
  for (const [signal, code] of Object.entries(EXIT_CODES)) {
    process.on(signal, () => process.exit(code));
  }
}
