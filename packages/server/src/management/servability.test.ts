import type { Registry } from "@trestle/registry";
import { describe, expect, it } from "vitest";
import { servabilityWarnings } from "./servability.js";

type Listed = ReturnType<Registry["services"]["list"]>[number];

function registryWith(services: { name: string; health: Listed["health"] }[]): Pick<Registry, "services"> {
  const listed = services.map(
    (s, i) => ({ id: `id-${i}`, target: { serviceName: s.name }, health: s.health }) as unknown as Listed,
  );
  return { services: { list: () => listed } as unknown as Registry["services"] };
}

describe("servabilityWarnings", () => {
  it("names a service nobody registered, and the ones that are", () => {
    const warnings = servabilityWarnings(
      { registry: registryWith([{ name: "http", health: "healthy" }]), expectedServiceNames: () => [] },
      "tool",
      "weather",
      "htpp",
    );
    expect(warnings).toEqual([
      "No capability service named 'htpp' is registered, so tool 'weather' cannot be served until one registers (registered: 'http')",
    ]);
  });

  it("says nothing for a registered, healthy service, or one the router expects (configured, built-in)", () => {
    const registry = registryWith([{ name: "http", health: "healthy" }]);
    expect(servabilityWarnings({ registry, expectedServiceNames: () => [] }, "tool", "t", "http")).toEqual(
      [],
    );
    expect(
      servabilityWarnings({ registry, expectedServiceNames: () => ["file"] }, "resource", "r", "file"),
    ).toEqual([]);
  });

  it("says when every instance is down", () => {
    const registry = registryWith([
      { name: "http", health: "down" },
      { name: "http", health: "down" },
    ]);
    expect(servabilityWarnings({ registry, expectedServiceNames: () => [] }, "tool", "t", "http")).toEqual([
      "Every instance of service 'http' is down, so tool 't' cannot be served until one is up",
    ]);
  });
});
