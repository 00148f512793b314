/**
 * A prompt hears the `session/cancel`s of its session from the moment it is received until it
 * ends, whether the session is still opening or open: a cancel between the session being ready
 * and the turn starting is not lost (`SessionTable.onCancel`).
 */
import { expect, test } from "bun:test";
import { createSessionTable } from "../../src/acp/sessions.ts";
import { silentLogger } from "../../src/log.ts";

const table = () =>
  createSessionTable({ logger: silentLogger, clientOptions: () => ({}) as never });

test("each cancel reaches the listeners of the session until they stop listening", () => {
  const sessions = table();
  const heard: string[] = [];
  const stopA = sessions.onCancel("a", () => heard.push("a1"));
  const stopA2 = sessions.onCancel("a", () => heard.push("a2"));
  sessions.onCancel("b", () => heard.push("b"));
  sessions.cancel("a");
  expect(heard).toEqual(["a1", "a2"]);
  stopA();
  sessions.cancel("a");
  expect(heard).toEqual(["a1", "a2", "a2"]);
  stopA2();
  sessions.cancel("a");
  sessions.cancel("unknown");
  expect(heard).toEqual(["a1", "a2", "a2"]);
});
