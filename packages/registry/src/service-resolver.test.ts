import { Code, type HealthState, type ServiceTarget, type ServiceType } from "@trestle/core";
import { beforeEach, describe, expect, it } from "vitest";
import { createCircuitBreaker } from "./circuit-breaker.js";
import { createServiceResolver, type HealthAwareResolver } from "./service-resolver.js";
import { createServiceView, type ServiceView } from "./service-view.js";

/** The resolver alone, over a view filled by hand and a clock moved by hand: no database, no timers. */
describe("the health-aware resolver", () => {
  let now: number;
  let version: number;
  let view: ServiceView;
  let resolver: HealthAwareResolver;

  function put(
    id: string,
    health: HealthState,
    fields: Partial<ServiceTarget> & { serviceType?: ServiceType } = {},
    healthChangedAt = now,
  ): ServiceTarget {
    const target: ServiceTarget = {
      id,
      serviceName: "weather",
      host: "10.0.0.1",
      port: 9000,
      serviceType: "tool-invoker",
      ...fields,
    };
    view.apply(
      { id, target, health, healthChangedAt, registeredAt: now, lastSeenAt: now, version: ++version },
      "local",
    );
    return target;
  }

  async function picks(n: number, name = "weather", type: ServiceType = "tool-invoker"): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push((await resolver.resolve(name, type))?.id ?? "none");
    return out;
  }

  beforeEach(() => {
    now = 1_000_000;
    version = 0;
    view = createServiceView();
    const clock = { now: () => now };
    resolver = createServiceResolver({
      view,
      clock,
      registrationGraceMs: 30_000,
      circuits: createCircuitBreaker({ clock, failureThreshold: 3, cooldownMs: 10_000 }),
    });
  });

  it("matches tool-invoker and multi-capability for tools, resource-provider and multi-capability for resources", async () => {
    put("invoker", "healthy");
    put("multi", "healthy", { serviceType: "multi-capability" });
    put("provider", "healthy", { serviceType: "resource-provider" });
    put("engine", "healthy", { serviceType: "code-execution-engine" });
    put("other-name", "healthy", { serviceName: "maps" });
    expect(new Set(await picks(4))).toEqual(new Set(["invoker", "multi"]));
    expect(new Set(await picks(4, "weather", "resource-provider"))).toEqual(new Set(["provider", "multi"]));
    expect(await picks(2, "weather", "code-execution-engine")).toEqual(["engine", "engine"]);
    expect(await picks(1, "nothing")).toEqual(["none"]);
  });

  it("resolves code execution by engine type and language, case-insensitively", async () => {
    put("py", "healthy", {
      serviceType: "code-execution-engine",
      serviceSubType: "jvm",
      languageName: "python",
    });
    put("js", "healthy", {
      serviceType: "code-execution-engine",
      serviceSubType: "jvm",
      languageName: "javascript",
    });
    expect((await resolver.resolveCodeExecution("jvm", "Python"))?.id).toBe("py");
    expect((await resolver.resolveCodeExecution("JVM", "javascript"))?.id).toBe("js");
    expect(await resolver.resolveCodeExecution("jvm", "ruby")).toBeUndefined();
  });

  it("spreads calls round robin across healthy equals", async () => {
    put("a", "healthy");
    put("b", "healthy", { port: 9001 });
    const chosen = await picks(10);
    expect(chosen.filter((id) => id === "a")).toHaveLength(5);
    expect(chosen.filter((id) => id === "b")).toHaveLength(5);
  });

  it("answers at once (resolveNow) as resolve does, sharing one rotation with it", async () => {
    put("a", "healthy");
    put("b", "healthy", { port: 9001 });
    const chosen = [
      resolver.resolveNow("weather", "tool-invoker")?.id,
      (await resolver.resolve("weather", "tool-invoker"))?.id,
      resolver.resolveNow("weather", "tool-invoker")?.id,
      (await resolver.resolve("weather", "tool-invoker"))?.id,
    ];
    expect(new Set(chosen.slice(0, 2))).toEqual(new Set(["a", "b"]));
    expect(chosen.slice(2)).toEqual(chosen.slice(0, 2));
    expect(resolver.resolveNow("maps", "tool-invoker")).toBeUndefined();
  });

  it("prefers a healthy target to a pending one with fewer calls in flight, and rotates only among the least loaded", async () => {
    const busy = put("busy", "healthy");
    put("idle-pending", "pending", { port: 9001 });
    resolver.callStarted?.(busy);
    resolver.callStarted?.(busy);
    expect(await picks(2)).toEqual(["busy", "busy"]);
    const c = put("c", "healthy", { port: 9002 });
    put("d", "healthy", { port: 9003 });
    resolver.callStarted?.(c);
    expect(await picks(4)).toEqual(["d", "d", "d", "d"]);
    resolver.callEnded?.(c, false);
    expect(new Set(await picks(2))).toEqual(new Set(["c", "d"]));
  });

  it("prefers the target with fewer calls in flight", async () => {
    const a = put("a", "healthy");
    put("b", "healthy", { port: 9001 });
    resolver.callStarted?.(a);
    resolver.callStarted?.(a);
    expect(await picks(3)).toEqual(["b", "b", "b"]);
    resolver.callEnded?.(a, false);
    resolver.callEnded?.(a, false);
    expect(new Set(await picks(2))).toEqual(new Set(["a", "b"]));
  });

  it("prefers healthy to pending, routes to pending only within the grace period, never to down or unhealthy", async () => {
    put("pending", "pending");
    expect(await picks(2)).toEqual(["pending", "pending"]);
    put("healthy", "healthy", { port: 9001 });
    expect(await picks(3)).toEqual(["healthy", "healthy", "healthy"]);
    put("healthy", "down", { port: 9001 });
    put("sick", "unhealthy", { port: 9002 });
    expect(await picks(1)).toEqual(["pending"]);
    now += 30_000;
    expect(await picks(1)).toEqual(["none"]);
  });

  it("closes an open circuit at once when the service proves it is back", async () => {
    const a = put("a", "healthy");
    for (let i = 0; i < 3; i++) resolver.callEnded?.(a, true);
    expect(resolver.circuitState("a")).toBe("open");
    resolver.closeCircuit("a");
    expect(resolver.circuitState("a")).toBe("closed");
    expect(await picks(2)).toEqual(["a", "a"]);
  });

  it("opens a target's circuit after consecutive service failures, tries it again after the cool-down", async () => {
    const a = put("a", "healthy");
    put("b", "healthy", { port: 9001 });
    resolver.callEnded?.(a, true);
    resolver.callEnded?.(a, false);
    resolver.callEnded?.(a, true);
    resolver.callEnded?.(a, true);
    expect(resolver.circuitState("a")).toBe("closed");
    resolver.callEnded?.(a, true);
    expect(resolver.circuitState("a")).toBe("open");
    expect(await picks(4)).toEqual(["b", "b", "b", "b"]);

    now += 10_000;
    expect(resolver.circuitState("a")).toBe("half-open");
    // One trial call goes to `a`; until it reports, `a` gets no more.
    const chosen = await picks(4);
    expect(chosen.filter((id) => id === "a")).toHaveLength(1);
    resolver.callEnded?.(a, true);
    expect(resolver.circuitState("a")).toBe("open");
    expect(await picks(2)).toEqual(["b", "b"]);

    now += 10_000;
    expect((await picks(4)).filter((id) => id === "a")).toHaveLength(1);
    resolver.callEnded?.(a, false);
    expect(resolver.circuitState("a")).toBe("closed");
    expect((await picks(4)).filter((id) => id === "a")).toHaveLength(2);
  });

  it("returns nothing when the only target's circuit is open, and forgets a removed target", async () => {
    const a = put("a", "healthy");
    for (let i = 0; i < 3; i++) resolver.callEnded?.(a, true);
    expect(await picks(1)).toEqual(["none"]);
    view.remove("a", ++version, "local");
    resolver.forget("a");
    expect(resolver.circuitState("a")).toBe("closed");
    expect(await picks(1)).toEqual(["none"]);
  });

  describe("explains why it found nothing", () => {
    const explained = (name = "weather", type: ServiceType = "tool-invoker") => {
      const error = resolver.explain(name, type);
      expect(error?.code).toBe(Code.Unavailable);
      return error?.rawMessage;
    };

    it("says nothing for a name no one registered, so the caller can say it is not registered", () => {
      put("maps", "down", { serviceName: "maps" });
      expect(resolver.explain("weather", "tool-invoker")).toBeUndefined();
      expect(resolver.explainCodeExecution("jvm", "python")).toBeUndefined();
    });

    it("names a down instance with its last health message", async () => {
      view.apply(
        {
          id: "a",
          target: { id: "a", serviceName: "weather", host: "h", port: 1, serviceType: "tool-invoker" },
          health: "down",
          healthMessage: "connect ECONNREFUSED",
          healthChangedAt: now,
          registeredAt: now,
          lastSeenAt: now,
          version: ++version,
        },
        "local",
      );
      expect(await picks(1)).toEqual(["none"]);
      expect(explained()).toBe(
        "The capability service 'weather' is unavailable: its instance is down (connect ECONNREFUSED)",
      );
    });

    it("counts instances by reason: down, unhealthy, never confirmed healthy", () => {
      put("a", "down");
      put("b", "down", { port: 9001 });
      put("c", "unhealthy", { port: 9002 });
      put("d", "pending", { port: 9003 }, now - 30_000);
      expect(explained()).toBe(
        "The capability service 'weather' is unavailable: 2 of its 4 instances are down; 1 of its 4 instances is unhealthy; 1 of its 4 instances is not confirmed healthy: no health check passed since it registered",
      );
    });

    it("names an open circuit with its failures and when it lets a call through again", async () => {
      const a = put("a", "healthy");
      for (let i = 0; i < 3; i++) resolver.callEnded?.(a, true);
      now += 2_500;
      expect(await picks(1)).toEqual(["none"]);
      expect(explained()).toBe(
        "The capability service 'weather' is unavailable: its circuit is open after 3 failed calls in a row (retry after ~8 s)",
      );
      now += 7_500;
      await picks(1); // the trial call
      expect(explained()).toMatch(/its instance is on trial after failed calls, a test call is under way/);
    });

    it("explains an engine the same way", () => {
      put("py", "down", {
        serviceType: "code-execution-engine",
        serviceSubType: "jvm",
        languageName: "python",
      });
      expect(resolver.explainCodeExecution("jvm", "python")?.rawMessage).toBe(
        "The code execution engine 'jvm' for 'python' is unavailable: its instance is down",
      );
    });
  });
});
