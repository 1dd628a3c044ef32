import { Code, TrestleError } from "@trestle/core";
import type { ForwardReference } from "@trestle/core/catalog";
import type { ServiceResolver } from "@trestle/core/routing";
import { describe, expect, it } from "vitest";
import { createForwardDirectory, type LiveForward } from "../src/forwards/forward-directory.js";
import { resolveForwardsFirst } from "../src/forwards/forward-resolver.js";
import { emptyStatus } from "../src/forwards/forward-view.js";

const defaults = { startTimeoutMs: 120_000, handshakeTimeoutMs: 30_000 };

function live(forward: ForwardReference): LiveForward {
  const namespace = forward.namespace ?? "";
  return {
    forward,
    namespace,
    service: namespace ? `forward.${namespace}.${forward.name}` : `forward.${forward.name}`,
    identity: forward.name,
    status: emptyStatus("connecting"),
    queue: Promise.resolve(),
    retryDelayMs: 1_000,
    stopped: false,
  };
}

describe("the forwards' resolver", () => {
  it("keeps every other name, and every other method of the resolver it wraps, as that resolver's", async () => {
    const directory = createForwardDirectory(defaults);
    const unavailable = new TrestleError(
      "The capability service 'x' is unavailable: its instance is down",
      Code.Unavailable,
    );
    const base = {
      resolve: async (name: string, _type: string) =>
        name === "x"
          ? undefined
          : { id: "1", serviceName: name, host: "h", port: 1, serviceType: "tool-invoker" as const },
      resolveCodeExecution: async () => undefined,
      explain: (name: string) => (name === "x" ? unavailable : undefined),
    } satisfies ServiceResolver & { explain(name: string): TrestleError | undefined };
    const resolver = resolveForwardsFirst(directory, base);
    expect(await resolver.resolve("http", "tool-invoker")).toMatchObject({ serviceName: "http" });
    expect(await resolver.resolve("x", "tool-invoker")).toBeUndefined();
    expect(resolver.explain("x", "tool-invoker")).toBe(unavailable);
  });

  it("answers a forward's service name with its target while the forward is in the directory", async () => {
    const directory = createForwardDirectory(defaults);
    const base: ServiceResolver = {
      resolve: async () => undefined,
      resolveCodeExecution: async () => undefined,
    };
    const resolver = resolveForwardsFirst(directory, base);
    const entry = live({ name: "everything", upstream: { kind: "stdio", command: "npx" } });
    directory.register(entry);
    expect(await resolver.resolve("forward.everything", "tool-invoker")).toMatchObject({
      serviceName: "forward.everything",
      protocol: "mcp",
    });
    directory.unregister(entry);
    expect(await resolver.resolve("forward.everything", "tool-invoker")).toBeUndefined();
  });

  it("answers at once for a forward, and otherwise as the wrapped resolver answers at once (or not at all)", () => {
    const directory = createForwardDirectory(defaults);
    const entry = live({ name: "everything", upstream: { kind: "stdio", command: "npx" } });
    directory.register(entry);
    const waiting: ServiceResolver = {
      resolve: async () => undefined,
      resolveCodeExecution: async () => undefined,
    };
    expect(
      resolveForwardsFirst(directory, waiting).resolveNow?.("forward.everything", "tool-invoker"),
    ).toMatchObject({
      serviceName: "forward.everything",
    });
    expect(resolveForwardsFirst(directory, waiting).resolveNow?.("http", "tool-invoker")).toBeUndefined();
    const inMemory: ServiceResolver = {
      ...waiting,
      resolveNow: (name) => ({ id: "1", serviceName: name, host: "h", port: 1, serviceType: "tool-invoker" }),
    };
    expect(resolveForwardsFirst(directory, inMemory).resolveNow?.("http", "tool-invoker")).toMatchObject({
      serviceName: "http",
    });
  });
});

describe("the forward directory", () => {
  it("gives the MCP transport each forward's upstream and handshake timeout, its own over the router's", () => {
    const directory = createForwardDirectory(defaults);
    const own = live({
      name: "own",
      upstream: { kind: "http", url: "http://127.0.0.1:1/mcp" },
      startTimeoutMs: 5_000,
      handshakeTimeoutMs: 2_000,
    });
    const plain = live({ name: "plain", namespace: "team", upstream: { kind: "stdio", command: "npx" } });
    directory.register(own);
    directory.register(plain);
    const target = (serviceName: string) => ({
      id: serviceName,
      serviceName,
      host: "",
      port: 0,
      serviceType: "multi-capability" as const,
    });
    expect(directory.upstreamFor(target("forward.own"))).toEqual(own.forward.upstream);
    expect(directory.handshakeTimeoutFor?.(target("forward.own"))).toBe(2_000);
    expect(directory.handshakeTimeoutFor?.(target("forward.team.plain"))).toBe(30_000);
    expect(directory.timeoutsOf(own.forward)).toEqual({ startTimeoutMs: 5_000, handshakeTimeoutMs: 2_000 });
    expect(directory.timeoutsOf(plain.forward)).toEqual(defaults);
    expect(directory.upstreamFor(target("forward.other"))).toBeUndefined();
    expect(directory.get("team", "plain")).toBe(plain);
    expect(directory.isForwarded("forward.team.plain")).toBe(true);
  });
});
