/**
 * Many commands of one session at once, through the real runner, bridge and holder: each
 * command's bridge is bound on a port of its own in the session's one namespace, the one its
 * proxy variables name, and its questions reach its own requester only. A server of the
 * session holds a port one of them is given in turn, so that bridge moves on to ports the
 * next ones are given, and they race for them. Every command waits on its own question until
 * all have asked, so all the bridges are bound at the same moment, whatever the load.
 */
import { afterAll, expect, test } from "bun:test";
import { openHolders } from "../../src/exec/network-holder.ts";
import { silentLogger } from "../../src/log.ts";
import { createNetworkService } from "../../src/network/service.ts";
import type { NetworkRequester } from "../../src/network/types.ts";
import { ensureBinary } from "../support/binary.ts";
import { runIf } from "../support/gate.ts";
import { sandboxStatus } from "../support/sandbox-gate.ts";
import { makeRunner, run, tempDir } from "../exec/helpers.ts";
import { meetingRequesters } from "./meeting-requesters.ts";

const bwrapHere = sandboxStatus.ok && sandboxStatus.backend === "bwrap";
const holders = bwrapHere ? await openHolders(silentLogger) : undefined;
const check = runIf(
  holders !== undefined && Bun.which("python3") !== null,
  test,
  "no bwrap sandbox, nsenter or python3 here",
);
const network = createNetworkService({
  config: undefined,
  savedHosts: () => [],
  logger: silentLogger,
  // The bridge, as where dsh may not make namespaces itself.
  namespaces: "never",
  selfArgv: [await ensureBinary()],
  holders: async () => holders,
});
const runner = makeRunner({ network });
afterAll(async () => {
  await runner[Symbol.asyncDispose]();
  await network[Symbol.asyncDispose]();
});

const COMMANDS = 8;
// The session's bridges are given 41080 (the server's), then 41081 and on, in turn.
const SERVER_PORT = 41083;

/** Holds `port` in the session's namespace; asks about a host once it does, then waits. */
const server = `python3 -c 'import socket, urllib.request
s = socket.socket(); s.bind(("127.0.0.1", ${SERVER_PORT})); s.listen()
try: urllib.request.urlopen("http://127.0.0.9:99/")
except Exception: pass'`;

check(
  "commands of a session at once each have a bound port of their own, however they race",
  async () => {
    using dir = tempDir();
    const scoped = (command: string, who: NetworkRequester) =>
      run(runner, dir.path, command, { network: who, networkScope: "s" });
    const { promise: holding, resolve: held } = Promise.withResolvers<void>();
    const { promise: done, resolve: finish } = Promise.withResolvers<void>();
    const serving = scoped(server, {
      label: "server",
      async ask() {
        held();
        await done;
        return "deny";
      },
    });
    const early = await Promise.race([holding, serving]);
    if (early !== undefined) throw new Error(`the server ended at once: ${early.output}`);
    const askers = meetingRequesters(COMMANDS);
    const results = await Promise.all(
      askers.map((who, i) =>
        scoped(`curl -s -o /dev/null http://127.0.0.9:${100 + i}/; echo "$HTTP_PROXY"`, who),
      ),
    );
    finish();
    await serving;
    expect(askers.map((who) => who.asked)).toEqual(
      askers.map((_, i) => [JSON.stringify({ host: "127.0.0.9", port: 100 + i })]),
    );
    // Each bridge took the first free port from the one it was given: the server's port and
    // its bridge's are passed over, and no two commands share one.
    const ports = results.map((result) => Number(/127\.0\.0\.1:(\d+)/.exec(result.output)?.[1]));
    const expected = [41081, 41082, 41084, 41085, 41086, 41087, 41088, 41089];
    expect(ports.toSorted((a, b) => a - b)).toEqual(expected);
  },
  60_000,
);
