/** The provider chain of the interaction seam. It never hangs and never throws. */
import type { InteractionProvider, InteractionSeam } from "./types.ts";

export interface InteractionSeamDeps {
  readonly providers: readonly InteractionProvider[];
  readonly onError?: (error: unknown) => void;
}

export function createInteractionSeam(deps: InteractionSeamDeps): InteractionSeam {
  const providerFor = (sessionId: string) =>
    deps.providers.find((provider) => provider.canAsk(sessionId));
  return {
    canAsk: (sessionId) => providerFor(sessionId) !== undefined,
    async ask(request, signal) {
      const provider = providerFor(request.sessionId);
      if (provider === undefined) {
        return { outcome: "unavailable", reason: "nobody can be asked in this session" };
      }
      if (signal.aborted) return { outcome: "cancelled" };
      try {
        return await provider.ask(request, signal);
      } catch (error) {
        deps.onError?.(error);
        return signal.aborted ? { outcome: "cancelled" } : { outcome: "declined" };
      }
    },
  };
}
