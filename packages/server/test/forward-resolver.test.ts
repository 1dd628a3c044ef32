import { Code, type ServiceResolver, TrestleError } from "@trestle/core";
import type { Catalog } from "@trestle/registry";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createForwardManager } from "../src/forwards/forward-manager.js";

describe("the forwards' resolver", () => {
  it("keeps every other name, and every other method of the resolver it wraps, as that resolver's", async () => {
    const forwards = createForwardManager({
      catalog: {} as Catalog,
      logger: pino({ level: "silent" }),
      handshakeTimeoutMs: 1_000,
      catalogTimeoutMs: 1_000,
    });
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
    const resolver = forwards.resolver(base);
    expect(await resolver.resolve("http", "tool-invoker")).toMatchObject({ serviceName: "http" });
    expect(await resolver.resolve("x", "tool-invoker")).toBeUndefined();
    expect(resolver.explain("x")).toBe(unavailable);
    await forwards.close();
  });
});
