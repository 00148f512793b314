import { describe, expect, test } from "bun:test";
import { describeFetchFailure } from "../../src/llm/http-errors.ts";

/** What a real `fetch` to `url` throws. */
async function fetchError(url: string): Promise<unknown> {
  try {
    await fetch(url, { method: "POST", body: "{}" });
  } catch (error) {
    return error;
  }
  throw new Error(`fetch ${url} did not fail`);
}

describe("fetch failures in the user's terms", () => {
  test("a reset connection says so, without the runtime's advice to developers", async () => {
    using server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.terminate();
        },
      },
    });
    const error = await fetchError(`http://127.0.0.1:${server.port}/chat/completions`);
    expect(describeFetchFailure(error)).toBe(
      "the connection was reset by the server or the network",
    );
  });

  test("a refused connection says what to check", async () => {
    using server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const url = `http://127.0.0.1:${server.port}/`;
    server.stop(true);
    expect(describeFetchFailure(await fetchError(url))).toBe(
      "the connection was refused (is the server running, and is the URL right?)",
    );
  });

  test("an unknown failure keeps its message, less any advice to pass `verbose: true`", () => {
    const error = new Error(
      "Something odd happened. For more information, pass `verbose: true` in the second argument to fetch()",
    );
    expect([describeFetchFailure(error), describeFetchFailure("plain")]).toEqual([
      "Something odd happened",
      "plain",
    ]);
  });
});
