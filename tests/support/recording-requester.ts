/** A network requester for tests: answers every question the same way and records the rules asked about. */
import type { HostAnswer, NetworkRequester } from "../../src/network/types.ts";

export interface RecordingRequester extends NetworkRequester {
  /** Each question's rule as JSON, in order. */
  readonly asked: string[];
}

export function recordingRequester(answer: HostAnswer = "deny"): RecordingRequester {
  const asked: string[] = [];
  return {
    label: "test",
    sessionId: "s",
    asked,
    ask: async (question) => {
      asked.push(JSON.stringify(question.rule));
      return answer;
    },
  };
}
