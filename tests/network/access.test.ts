/**
 * The decision about a destination: deny wins, allowed hosts pass, others are asked about once
 * per host and command, names are resolved only once allowed, and only public addresses (or
 * addresses allowed by address) come back to connect to.
 */
import { describe, expect, test } from "bun:test";
import { type IpAddress, parseIpLiteral } from "../../src/network/address.ts";
import { createNetworkAccess } from "../../src/network/access.ts";
import { parseHost } from "../../src/network/host.ts";
import { hostPolicyOf, patternsOf } from "../../src/network/policy.ts";
import type { HostAnswer, HostQuestion, NetworkRequester, Reach } from "../../src/network/types.ts";

const DNS: Record<string, string[]> = {
  "public.test": ["93.184.216.34"],
  "loop.test": ["127.0.0.2"],
  "meta.test": ["169.254.169.254"],
  "mixed.test": ["10.0.0.5", "93.184.216.35"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "v6.test": ["2606:4700::1"],
};

interface Rig {
  readonly reach: (host: string, port: number) => Promise<Reach>;
  readonly asked: HostQuestion[];
  readonly resolved: string[];
  readonly notes: () => string[];
  readonly close: () => void;
}

function rig(options: {
  allow?: string[];
  deny?: string[];
  saved?: string[];
  answer?: (question: HostQuestion, signal: AbortSignal) => Promise<HostAnswer>;
}): Rig {
  const asked: HostQuestion[] = [];
  const resolved: string[] = [];
  const access = createNetworkAccess({
    policy: hostPolicyOf({ allow: options.allow ?? [], deny: options.deny ?? [] }),
    savedHosts: (project) => (project === "/p" ? patternsOf(options.saved ?? []) : []),
    resolve: async (name) => {
      resolved.push(name);
      const found = DNS[name];
      if (found === undefined) throw new Error("ENOTFOUND");
      return found.map((text) => parseIpLiteral(text) as IpAddress);
    },
    configPath: "/cfg.toml",
  });
  const requester: NetworkRequester = {
    sessionId: "s",
    label: "curl",
    project: "/p",
    ask: async (question, signal) => {
      asked.push(question);
      return options.answer === undefined ? "deny" : options.answer(question, signal);
    },
  };
  const command = access.forRequester(requester);
  return {
    reach: (host, port) => {
      const parsed = parseHost(host);
      if (parsed === undefined) throw new Error(`not a host: ${host}`);
      return command.reach({ host: parsed, port }, new AbortController().signal);
    },
    asked,
    resolved,
    notes: () => command.notes(),
    close: () => command.close(),
  };
}

const addresses = (reach: Reach) => (reach.ok ? reach.addresses.map((a) => a.text) : reach.kind);

describe("the host policy", () => {
  test("deny wins over allow, and nobody is asked", async () => {
    const r = rig({ allow: ["*.corp.test"], deny: ["secret.corp.test"] });
    expect(await r.reach("secret.corp.test", 443)).toEqual({
      ok: false,
      kind: "denied",
      reason: 'secret.corp.test is denied by [network] deny ("secret.corp.test") in /cfg.toml',
    });
    expect(r.asked).toEqual([]);
    expect(r.resolved).toEqual([]);
  });

  test("a deny with a port denies that port only", async () => {
    const r = rig({ allow: ["public.test"], deny: ["public.test:25"] });
    expect(addresses(await r.reach("public.test", 25))).toBe("denied");
    expect(addresses(await r.reach("public.test", 443))).toEqual(["93.184.216.34"]);
  });

  test("an allowed name that resolves to public addresses is reached at those addresses", async () => {
    const r = rig({ allow: ["public.test", "v6.test"] });
    expect(addresses(await r.reach("public.test", 443))).toEqual(["93.184.216.34"]);
    expect(addresses(await r.reach("v6.test", 443))).toEqual(["2606:4700::1"]);
    expect(r.asked).toEqual([]);
  });

  test("an allowed name that resolves to loopback or metadata is refused", async () => {
    const r = rig({ allow: ["loop.test", "meta.test", "mapped.test"] });
    for (const name of ["loop.test", "meta.test", "mapped.test"]) {
      const reach = await r.reach(name, 80);
      expect(reach.ok ? "reached" : reach.kind).toBe("address");
    }
    const reach = await r.reach("meta.test", 80);
    expect(reach.ok ? "" : reach.reason).toBe(
      "meta.test resolves to 169.254.169.254, a cloud metadata address, which is reached only " +
        "when allowed by address; a name that resolves there is refused unless that address " +
        "itself is allowed",
    );
  });

  test("the resolved address itself allowed (with its port) lets the name through", async () => {
    const r = rig({ allow: ["loop.test", "127.0.0.2:8080", "mapped.test", "127.0.0.1"] });
    expect(addresses(await r.reach("loop.test", 8080))).toEqual(["127.0.0.2"]);
    expect(addresses(await r.reach("loop.test", 8081))).toBe("address");
    expect(addresses(await r.reach("mapped.test", 5))).toEqual(["::ffff:7f00:1"]);
  });

  test("of mixed addresses only the public ones come back", async () => {
    const r = rig({ allow: ["mixed.test"] });
    expect(addresses(await r.reach("mixed.test", 443))).toEqual(["93.184.216.35"]);
  });

  test("a deny of an address refuses a name that resolves to it", async () => {
    const r = rig({ allow: ["public.test"], deny: ["93.184.216.34"] });
    expect(addresses(await r.reach("public.test", 443))).toBe("address");
  });

  test("an address literal in allow is reached in any spelling; others are asked about", async () => {
    const r = rig({ allow: ["127.0.0.2:8080"] });
    for (const spelling of ["127.0.0.2", "0x7f.0.0.2", "2130706434", "[::ffff:127.0.0.2]"]) {
      expect(addresses(await r.reach(spelling, 8080)).toString()).toMatch(/127\.0\.0\.2|7f00:2/);
    }
    expect(r.asked).toEqual([]);
    expect(addresses(await r.reach("127.0.0.3", 8080))).toBe("not_allowed");
    expect(r.asked.map((q) => q.note)).toEqual([
      "127.0.0.3 is a loopback address (a service on this machine)",
    ]);
  });

  test("* allows every name but no address that is not public", async () => {
    const r = rig({ allow: ["*"] });
    expect(addresses(await r.reach("public.test", 443))).toEqual(["93.184.216.34"]);
    expect(addresses(await r.reach("loop.test", 443))).toBe("address");
    expect(addresses(await r.reach("127.0.0.1", 443))).toBe("address");
    expect(addresses(await r.reach("8.8.8.8", 53))).toEqual(["8.8.8.8"]);
  });
});

describe("asking", () => {
  test("an unknown name is asked about before it is resolved; a no is never resolved", async () => {
    const r = rig({});
    expect(await r.reach("public.test", 443)).toEqual({
      ok: false,
      kind: "not_allowed",
      reason:
        "public.test:443 is not allowed: [network] allow does not list it, and the user did not " +
        "allow it (or nobody could be asked)",
    });
    expect(r.asked.map((q) => q.rule)).toEqual([{ host: "public.test" }]);
    expect(r.resolved).toEqual([]);
  });

  test("concurrent connections to one host ask once and share the answer, for any port", async () => {
    const gate = Promise.withResolvers<HostAnswer>();
    const r = rig({ answer: () => gate.promise });
    const burst = Array.from({ length: 40 }, (_, i) => r.reach("public.test", i % 2 ? 443 : 80));
    gate.resolve("allow");
    const reaches = await Promise.all(burst);
    expect(reaches.every((reach) => reach.ok)).toBe(true);
    expect(r.asked).toHaveLength(1);
    expect(addresses(await r.reach("public.test", 8443))).toEqual(["93.184.216.34"]);
    expect(r.asked).toHaveLength(1);
  });

  test("a no is remembered for the command: the host is not asked about again", async () => {
    const r = rig({ answer: async () => "deny" });
    await r.reach("public.test", 443);
    await r.reach("public.test", 443);
    expect(r.asked).toHaveLength(1);
    expect(r.notes()).toEqual([
      "[network: the proxy refused public.test:443: public.test:443 is not allowed: [network] " +
        "allow does not list it, and the user did not allow it (or nobody could be asked)]",
    ]);
  });

  test("under the never policy nothing is asked and the reason says so", async () => {
    const r = rig({ answer: async () => "refused" });
    const reach = await r.reach("public.test", 443);
    expect(reach.ok ? "" : reach.reason).toContain("the approval policy never asks");
  });

  test("an address is asked about with its port; the yes allows that address itself", async () => {
    const r = rig({ answer: async () => "allow" });
    expect(addresses(await r.reach("127.0.0.2", 8080))).toEqual(["127.0.0.2"]);
    expect(r.asked.map((q) => q.rule)).toEqual([{ host: "127.0.0.2", port: 8080 }]);
    await r.reach("127.0.0.2", 8081);
    expect(r.asked).toHaveLength(2);
  });

  test("a yes about a name does not let it reach a private address", async () => {
    const r = rig({ answer: async () => "allow" });
    expect(addresses(await r.reach("loop.test", 80))).toBe("address");
  });

  test("saved rules allow without asking, an address rule with its port included", async () => {
    const r = rig({ saved: ["public.test", "127.0.0.2:8080"] });
    expect(addresses(await r.reach("public.test", 443))).toEqual(["93.184.216.34"]);
    expect(addresses(await r.reach("127.0.0.2", 8080))).toEqual(["127.0.0.2"]);
    expect(r.asked).toEqual([]);
  });

  test("closing the command ends a pending question as a no", async () => {
    const r = rig({
      answer: (_question, signal) =>
        new Promise((resolve) => signal.addEventListener("abort", () => resolve("deny"))),
    });
    const pending = r.reach("public.test", 443);
    await Promise.resolve();
    r.close();
    expect(addresses(await pending)).toBe("not_allowed");
    expect(addresses(await r.reach("other.test", 443))).toBe("not_allowed");
  });

  test("a name that does not resolve is refused as such", async () => {
    const r = rig({ allow: ["nowhere.test"] });
    expect(await r.reach("nowhere.test", 443)).toEqual({
      ok: false,
      kind: "unresolved",
      reason: "nowhere.test does not resolve to any address",
    });
  });
});

describe("checkedLookup", () => {
  test("a connection by name goes to the checked address only", async () => {
    const { checkedLookup } = await import("../../src/network/checked-lookup.ts");
    const { request } = await import("node:http");
    await using server = {
      inner: Bun.serve({ hostname: "127.0.0.2", port: 0, fetch: () => new Response("checked") }),
      async [Symbol.asyncDispose]() {
        await this.inner.stop(true);
      },
    };
    const address = parseIpLiteral("127.0.0.2") as IpAddress;
    const { promise, resolve, reject } = Promise.withResolvers<string>();
    const req = request(
      {
        host: "never-resolved.invalid",
        port: server.inner.port,
        path: "/",
        lookup: checkedLookup([address]),
      },
      (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve(body));
      },
    );
    req.on("error", reject);
    req.end();
    expect(await promise).toBe("checked");
  });
});
