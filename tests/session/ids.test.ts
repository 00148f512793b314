import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { InvalidInputError } from "../../src/errors.ts";
import { assertSessionId, isSessionId, newSessionId, sessionPath } from "../../src/session/ids.ts";
import { HOSTILE_IDS, VALID_ID } from "./helpers.ts";

describe("session ids", () => {
  test("new ids are lowercase UUIDs that sort by creation", () => {
    const ids = Array.from({ length: 200 }, () => newSessionId());
    for (const id of ids) expect(isSessionId(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  test.each(HOSTILE_IDS)("rejects an id with %s", (_label, id) => {
    expect(() => assertSessionId(id)).toThrow(InvalidInputError);
    expect(() => sessionPath("/home", id)).toThrow(InvalidInputError);
  });

  test("the error quotes only a short prefix of a long id", () => {
    let message = "";
    try {
      assertSessionId("b".repeat(1000));
    } catch (error) {
      if (error instanceof InvalidInputError) message = error.message;
    }
    expect(message).toContain("expected a lowercase UUID");
    expect(message.length).toBeLessThan(120);
  });

  test("accepts a lowercase UUID of any version", () => {
    expect(() => assertSessionId(VALID_ID)).not.toThrow();
    expect(isSessionId("550e8400-e29b-41d4-a716-446655440000")).toBe(true);
  });

  test("a valid id maps to <home>/sessions/<id>.jsonl", () => {
    const id = newSessionId();
    expect(sessionPath("/h", id)).toBe(join("/h", "sessions", `${id}.jsonl`));
  });
});
