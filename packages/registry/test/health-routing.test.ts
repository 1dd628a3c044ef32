import {
  type BridgeTransport,
  Code,
  type HealthStatus,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import { createInMemoryNetwork, createInMemoryTransport } from "@trestle/core/in-memory";
import { createTransportSelector } from "@trestle/core/routing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRegistry, openStore, type Registry, type RegistryEvent, type Store } from "../src/index.js";
import { nextEvent, uniqueSuffix } from "./support/wait.js";

const PROBE_INTERVAL_MS = 250;

/** Health and routing with real probes through the in-memory transport, on one embedded database. */
describe("health-aware routing", () => {
  let store: Store;
  const registries: Registry[] = [];

  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    await store?.close();
  });

  async function registry(options: Partial<Parameters<typeof createRegistry>[0]> = {}): Promise<Registry> {
    const created = await createRegistry({
      store,
      probeIntervalMs: PROBE_INTERVAL_MS,
      registrationGraceMs: 60_000,
      ...options,
    });
    registries.push(created);
    await created.start();
    return created;
  }

  function healthOf(r: Registry, id: string, state: HealthStatus["state"], what: string, timeoutMs = 5000) {
    return nextEvent<RegistryEvent>(
      (l) => r.services.onEvent(l),
      (e) => e.type === "health-changed" && e.service.id === id && e.service.health === state,
      what,
      timeoutMs,
    );
  }

  async function registerHealthy(
    r: Registry,
    target: Omit<ServiceTarget, "id"> & { id?: string },
  ): Promise<ServiceTarget> {
    const healthy = nextEvent<RegistryEvent>(
      (l) => r.services.onEvent(l),
      (e) =>
        e.type === "health-changed" &&
        e.service.health === "healthy" &&
        e.service.target.serviceName === target.serviceName &&
        e.service.target.port === target.port,
      `${target.serviceName} at port ${target.port} to become healthy`,
    );
    const registered = await r.services.register(target);
    expect((await healthy).service.id).toBe(registered.id);
    return registered;
  }

  async function share(r: Registry, name: string, calls: number): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (let i = 0; i < calls; i++) {
      const target = await r.resolver.resolve(name, "tool-invoker");
      const key = target ? `${target.id}@${target.port}` : "none";
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  it("shares load between two instances, moves all of it off a killed one within a probe interval, and routes to it again once it restarts", async () => {
    const network = createInMemoryNetwork();
    const transports = createTransportSelector({
      byProtocol: { grpc: createInMemoryTransport({ network }) },
    });
    const r = await registry({ transports });
    const name = `weather-${uniqueSuffix()}`;
    const servedA = network.serve({}, { serviceName: name, serviceType: "tool-invoker" });
    const servedB = network.serve({}, { serviceName: name, serviceType: "tool-invoker" });
    const a = await registerHealthy(r, { ...servedA.target, id: undefined });
    const b = await registerHealthy(r, { ...servedB.target, id: undefined });

    expect([...(await share(r, name, 10)).values()]).toEqual([5, 5]);

    const down = healthOf(r, a.id, "down", "the killed instance to be marked down");
    const killedAt = Date.now();
    await servedA.close();
    await down;
    // Within one probe interval, plus the time one probe takes: a generous bound on behaviour, not speed.
    expect(Date.now() - killedAt).toBeLessThan(PROBE_INTERVAL_MS + 2000);
    expect(await share(r, name, 6)).toEqual(new Map([[`${b.id}@${b.port}`, 6]]));

    // The capability restarts on a new port and registers again with its old id: still one entry.
    const restarted = network.serve({}, { serviceName: name, serviceType: "tool-invoker" });
    const again = await registerHealthy(r, { ...restarted.target, id: a.id });
    expect(again.id).toBe(a.id);
    expect(r.services.list().filter((s) => s.target.serviceName === name)).toHaveLength(2);
    expect([...(await share(r, name, 10)).keys()].sort()).toEqual(
      [`${a.id}@${restarted.target.port}`, `${b.id}@${b.port}`].sort(),
    );
  });

  it("re-probes a service that went down and routes to it again when it answers, without a new registration", async () => {
    const reachable = new Set<number>([7001]);
    const transport: BridgeTransport = {
      async probeHealth(target): Promise<HealthStatus> {
        return reachable.has(target.port)
          ? { state: "healthy" }
          : { state: "down", message: `Connection refused by ${target.host}:${target.port}` };
      },
      provision: () => Promise.reject(new TrestleError("not used", Code.Unimplemented)),
      callTool: () => Promise.reject(new TrestleError("not used", Code.Unimplemented)),
      readResource: () => Promise.reject(new TrestleError("not used", Code.Unimplemented)),
      executeCode: () => {
        throw new TrestleError("not used", Code.Unimplemented);
      },
      close: async () => {},
    };
    const r = await registry({ transports: createTransportSelector({ byProtocol: { grpc: transport } }) });
    const name = `flaky-${uniqueSuffix()}`;
    const target = await registerHealthy(r, {
      serviceName: name,
      host: "10.1.1.1",
      port: 7001,
      serviceType: "tool-invoker",
    });

    const down = healthOf(r, target.id, "down", "the unreachable service to be marked down");
    reachable.delete(7001);
    await down;
    expect(await r.resolver.resolve(name, "tool-invoker")).toBeUndefined();
    const history = await r.services.healthHistory(target.id);
    expect(history[0]).toMatchObject({ state: "down", message: "Connection refused by 10.1.1.1:7001" });

    const back = healthOf(r, target.id, "healthy", "the service to come back");
    reachable.add(7001);
    await back;
    expect((await r.resolver.resolve(name, "tool-invoker"))?.id).toBe(target.id);
  });

  it("writes a reachable service's last sign of life only as often as the heartbeat timeout needs, and never lets it go silent", async () => {
    const network = createInMemoryNetwork();
    const transports = createTransportSelector({
      byProtocol: { grpc: createInMemoryTransport({ network }) },
    });
    const touched: string[][] = [];
    // The shared store, counting the prober's touches (each one a write to the database).
    const counting = new Proxy(store, {
      get(target, key) {
        if (key === "touchServices") {
          return (ids: readonly string[], now: number) => {
            touched.push([...ids]);
            return target.touchServices(ids, now);
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const r = await registry({
      store: counting,
      transports,
      probeIntervalMs: 100,
      heartbeatTimeoutMs: 1_200,
    });
    const name = `steady-${uniqueSuffix()}`;
    const served = network.serve({}, { serviceName: name, serviceType: "tool-invoker" });
    const target = await registerHealthy(r, { ...served.target, id: undefined });
    const changes: string[] = [];
    r.services.onEvent((e) => {
      if (e.type === "health-changed" && e.service.id === target.id) changes.push(e.service.health);
    });
    const from = touched.length;
    // Longer than the heartbeat timeout: about sixteen probing rounds.
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const touches = touched.slice(from).filter((ids) => ids.includes(target.id)).length;
    // Every 400 ms (a third of the timeout), not every round.
    expect(touches).toBeGreaterThanOrEqual(2);
    expect(touches).toBeLessThanOrEqual(6);
    expect(changes).toEqual([]);
    expect(r.services.get(target.id)?.health).toBe("healthy");
  });

  it("never probes an instance the instance policy refuses: it is unhealthy with the reason and takes no calls", async () => {
    const probed: string[] = [];
    const transport: BridgeTransport = {
      async probeHealth(target): Promise<HealthStatus> {
        probed.push(target.host);
        return { state: "healthy" };
      },
      provision: () => Promise.reject(new TrestleError("not used", Code.Unimplemented)),
      callTool: () => Promise.reject(new TrestleError("not used", Code.Unimplemented)),
      readResource: () => Promise.reject(new TrestleError("not used", Code.Unimplemented)),
      executeCode: () => {
        throw new TrestleError("not used", Code.Unimplemented);
      },
      close: async () => {},
    };
    const refused = new Set(["169.254.169.254"]);
    const r = await registry({
      transports: createTransportSelector({ byProtocol: { grpc: transport } }),
      instancePolicy: async (service) =>
        refused.has(service.target.host) ? `${service.target.host} is link-local` : undefined,
    });
    const name = `metadata-${uniqueSuffix()}`;
    const unhealthy = nextEvent<RegistryEvent>(
      (l) => r.services.onEvent(l),
      (e) => e.type === "health-changed" && e.service.target.serviceName === name,
      "the refused instance's health",
    );
    const target = await r.services.register({
      serviceName: name,
      host: "169.254.169.254",
      port: 80,
      serviceType: "tool-invoker",
    });
    const changed = (await unhealthy).service;
    expect(changed).toMatchObject({
      id: target.id,
      health: "unhealthy",
      healthMessage: "169.254.169.254 is link-local",
    });
    // A few rounds later it has still not been probed, and no call is routed to it.
    await new Promise((done) => setTimeout(done, PROBE_INTERVAL_MS * 3));
    expect(probed).not.toContain("169.254.169.254");
    expect(await r.resolver.resolve(name, "tool-invoker")).toBeUndefined();

    // The policy is asked at every round: once it allows the address, the instance is probed and healthy.
    const healthy = healthOf(r, target.id, "healthy", "the instance once allowed");
    refused.clear();
    await healthy;
    expect(probed).toContain("169.254.169.254");
  });

  it("marks a service unhealthy when no transport speaks its protocol", async () => {
    const network = createInMemoryNetwork();
    const r = await registry({
      transports: createTransportSelector({ byProtocol: { grpc: createInMemoryTransport({ network }) } }),
    });
    const registered = nextEvent<RegistryEvent>(
      (l) => r.services.onEvent(l),
      (e) => e.type === "health-changed" && e.service.target.protocol === "carrier-pigeon",
      "the service with an unknown protocol to be judged",
    );
    await r.services.register({
      serviceName: `odd-${uniqueSuffix()}`,
      host: "h",
      port: 1,
      serviceType: "tool-invoker",
      protocol: "carrier-pigeon",
    });
    const event = await registered;
    expect(event.service.health).toBe("unhealthy");
    expect(event.service.healthMessage).toContain("No transport is configured for protocol 'carrier-pigeon'");
  });

  it("without transports, heartbeats make a service healthy and their absence marks it down", async () => {
    const r = await registry({ heartbeatTimeoutMs: 400, probeIntervalMs: 100 });
    const name = `beating-${uniqueSuffix()}`;
    const target = await r.services.register({
      serviceName: name,
      host: "h",
      port: 2,
      serviceType: "tool-invoker",
    });
    expect(r.services.get(target.id)?.health).toBe("pending");
    // Pending within the grace period: routable before any heartbeat.
    expect((await r.resolver.resolve(name, "tool-invoker"))?.id).toBe(target.id);
    await r.services.heartbeat(target.id);
    expect(r.services.get(target.id)?.health).toBe("healthy");

    await healthOf(r, target.id, "down", "the silent service to be marked down");
    expect(await r.resolver.resolve(name, "tool-invoker")).toBeUndefined();
    expect((await r.services.healthHistory(target.id))[0]?.message).toContain("heartbeat timeout");
  });

  it("removes services that stay silent past the stale time", async () => {
    const r = await registry({ heartbeatTimeoutMs: 100, staleServiceTtlMs: 300, probeIntervalMs: 100 });
    const target = await r.services.register({
      serviceName: `gone-${uniqueSuffix()}`,
      host: "h",
      port: 3,
      serviceType: "tool-invoker",
    });
    await nextEvent<RegistryEvent>(
      (l) => r.services.onEvent(l),
      (e) => e.type === "deregistered" && e.service.id === target.id,
      "the stale service to be removed",
    );
    expect(r.services.get(target.id)).toBeUndefined();
  });
});
