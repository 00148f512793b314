/**
 * Requesters whose questions are answered only once every one of them has been asked: the
 * commands they belong to are then all running at the same moment (each waits on its own
 * question, its listener open), however the machine schedules them, with no timing.
 */
import type { HostAnswer } from "../../src/network/types.ts";
import { type RecordingRequester, recordingRequester } from "../support/recording-requester.ts";

export function meetingRequesters(
  count: number,
  answer: HostAnswer = "deny",
): RecordingRequester[] {
  const { promise: met, resolve } = Promise.withResolvers<void>();
  const arrived = new Set<number>();
  return Array.from({ length: count }, (_, i) => {
    const recording = recordingRequester(answer);
    return {
      ...recording,
      async ask(question, signal) {
        const answered = recording.ask(question, signal);
        arrived.add(i);
        if (arrived.size === count) resolve();
        await met;
        return answered;
      },
    };
  });
}
