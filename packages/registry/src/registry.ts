import { randomUUID } from "node:crypto";
import { Code, TrestleError } from "@trestle/core";
import type { TransportSelector } from "@trestle/core/routing";
import { type Catalog, createCatalog } from "./catalog.js";
import { type CatalogChange, createCatalogView } from "./catalog-view.js";
import { createCircuitBreaker } from "./circuit-breaker.js";
import { type Clock, systemClock } from "./clock.js";
import { createHealthProber } from "./health-prober.js";
import { type RegistryLogger, silentLogger } from "./logger.js";
import { createServiceRegistry, type ServiceRegistry } from "./service-registry.js";
import { createServiceResolver, type HealthAwareResolver } from "./service-resolver.js";
import { createServiceView, type RegistryEvent } from "./service-view.js";
import type { RegisteredService, Store } from "./store.js";
import { createViewSync } from "./view-sync.js";

/** Options for {@link createRegistry}. Every duration is in milliseconds. */
export interface RegistryOptions {
  /** Where the catalog and registry live; see `openStore`. The registry does not close it. */
  store: Store;
  /** Reaches services for health probes. Without it no probes run, and heartbeats make services healthy. */
  transports?: TransportSelector;
  /** Time between probing rounds (default 10 000). */
  probeIntervalMs?: number;
  /** Probes running at once (default 8). */
  probeConcurrency?: number;
  /** Deadline of one probe (default the smaller of 5 000 and the interval). */
  probeTimeoutMs?: number;
  /** How long a new, still pending service may be routed to (default 30 000). */
  registrationGraceMs?: number;
  /** A service with no heartbeat, registration or probe answer for this long is marked down (default 60 000). */
  heartbeatTimeoutMs?: number;
  /** A service silent for this long is removed (default 900 000; 0 never removes). */
  staleServiceTtlMs?: number;
  /** Consecutive service failures of calls that open a target's circuit (default 3). */
  failureThreshold?: number;
  /** How long an open circuit keeps a target out of rotation (default 30 000). */
  circuitCooldownMs?: number;
  /** Time source (default the wall clock). */
  clock?: Clock;
  /** Structured logger, pino-compatible (default silent). */
  logger?: RegistryLogger;
  /** Names this process in the store's leases (default a random UUID). */
  instanceId?: string;
  /** Most registered instances of one service name; more registrations are refused (default: no limit). */
  maxInstancesPerService?: number;
  /**
   * The principal the configuration binds a service name to (`undefined`: none). Only it, or an admin, may
   * register under that name; without one, a name belongs to the first principal that registered under it.
   */
  configuredOwner?: (serviceName: string) => string | undefined;
  /**
   * Why the router must not reach a registered instance (its address is one the registering principal may not
   * use, say), or `undefined` when it may. The prober never probes a refused instance: it is marked unhealthy
   * with the reason, so no call goes to it, and it ages out like a silent one. Checked at every probe, so an
   * instance registered before a policy, or whose host name has come to resolve to a refused address, is caught.
   */
  instancePolicy?: (service: RegisteredService) => Promise<string | undefined>;
}

/** The catalog, the service registry and the resolver of one process, in step with the store. */
export interface Registry {
  /** Tools, resources, prompts and namespaces: reads from memory, writes through the store. */
  catalog: Catalog;
  /** Register, deregister, heartbeat, list with health, clean up stale services. */
  services: ServiceRegistry;
  /** Chooses the service for a call; tell it call outcomes for circuits and least-in-flight balancing. */
  resolver: HealthAwareResolver;
  /**
   * Starts following the change feed (changes from other replicas, resynchronising after a lost connection)
   * and the health prober. Until then the views change only by this process's own writes.
   */
  start(): Promise<void>;
  /** Stops the prober and the feed. The store stays open. Idempotent. */
  close(): Promise<void>;
}

const DURATIONS = [
  "probeIntervalMs",
  "probeConcurrency",
  "probeTimeoutMs",
  "registrationGraceMs",
  "heartbeatTimeoutMs",
  "staleServiceTtlMs",
  "failureThreshold",
  "circuitCooldownMs",
] as const;

function checkDurations(options: RegistryOptions): void {
  for (const key of DURATIONS) {
    const value = options[key];
    if (value === undefined) continue;
    const mayBeZero = key === "staleServiceTtlMs" || key === "registrationGraceMs";
    if (!Number.isFinite(value) || value < 0 || (!mayBeZero && value === 0)) {
      throw new TrestleError(
        `${key} must be a ${mayBeZero ? "non-negative" : "positive"} number, got ${value}`,
        Code.InvalidArgument,
      );
    }
  }
}

/**
 * Creates the registry over a store and loads the catalog and registry into memory.
 *
 * @example
 * ```ts
 * const store = await openStore({ dataDir: "/var/lib/trestle" });
 * const registry = await createRegistry({ store, transports: createTransportSelector({ byProtocol: { grpc } }) });
 * await registry.start();
 * registry.catalog.onChange((c) => notifyListChanged(c.namespace));
 * const target = await registry.resolver.resolve("weather", "tool-invoker");
 * ```
 * @throws TrestleError `InvalidArgument` for a negative or zero duration, or a heartbeat timeout not longer
 * than the probe interval when probing.
 */
export async function createRegistry(options: RegistryOptions): Promise<Registry> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const probeIntervalMs = options.probeIntervalMs ?? 10_000;
  const staleServiceTtlMs = options.staleServiceTtlMs ?? 900_000;
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 60_000;
  checkDurations(options);
  if (options.transports && heartbeatTimeoutMs <= probeIntervalMs) {
    // Probes refresh a service's last sign of life once per round; a shorter timeout would mark healthy
    // services down between two rounds.
    throw new TrestleError(
      `heartbeatTimeoutMs (${heartbeatTimeoutMs}) must be longer than probeIntervalMs (${probeIntervalMs})`,
      Code.InvalidArgument,
    );
  }
  const catalogListeners = new Set<(change: CatalogChange) => void>();
  const registryListeners = new Set<(event: RegistryEvent) => void>();

  const catalogView = createCatalogView();
  const serviceView = createServiceView();
  const circuits = createCircuitBreaker({
    clock,
    failureThreshold: options.failureThreshold ?? 3,
    cooldownMs: options.circuitCooldownMs ?? 30_000,
    onOpen(id, failures) {
      logger.warn({ serviceId: id, consecutiveFailures: failures }, "opened the circuit of a service");
    },
  });
  const resolver = createServiceResolver({
    view: serviceView,
    circuits,
    clock,
    registrationGraceMs: options.registrationGraceMs ?? 30_000,
  });

  function fanOut<E>(listeners: Set<(e: E) => void>, events: readonly E[]): void {
    for (const event of events) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          logger.error({ err: (error as Error).message }, "a registry listener threw");
        }
      }
    }
  }

  const sync = createViewSync({
    store: options.store,
    catalog: catalogView,
    services: serviceView,
    logger,
    onCatalogChanges: (changes) => fanOut(catalogListeners, changes),
    onRegistryEvents(events) {
      for (const event of events) {
        if (event.type === "deregistered") {
          resolver.forget(event.service.id);
          options.transports?.release(event.service.target);
        } else if (
          event.type === "registered" ||
          (event.type === "health-changed" && event.service.health === "healthy")
        ) {
          // A service that registered again or answered its probe is back: an open circuit must not keep it out
          // of rotation for the rest of its cool-down.
          resolver.closeCircuit(event.service.id);
        }
      }
      fanOut(registryListeners, events);
    },
  });
  await sync.load();

  const prober = createHealthProber({
    store: options.store,
    view: serviceView,
    sync,
    clock,
    logger,
    transports: options.transports,
    owner: options.instanceId ?? randomUUID(),
    intervalMs: probeIntervalMs,
    concurrency: options.probeConcurrency ?? 8,
    timeoutMs: options.probeTimeoutMs ?? Math.min(5000, probeIntervalMs),
    heartbeatTimeoutMs,
    staleServiceTtlMs,
    ...(options.instancePolicy ? { instancePolicy: options.instancePolicy } : {}),
  });

  const subscribe =
    <E>(listeners: Set<(e: E) => void>) =>
    (listener: (e: E) => void) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    };

  const catalog = createCatalog({
    store: options.store,
    view: catalogView,
    sync,
    clock,
    subscribe: subscribe(catalogListeners),
  });
  const services = createServiceRegistry({
    store: options.store,
    view: serviceView,
    sync,
    clock,
    prober,
    probing: options.transports !== undefined,
    staleServiceTtlMs,
    ...(options.maxInstancesPerService !== undefined
      ? { maxInstancesPerService: options.maxInstancesPerService }
      : {}),
    ...(options.configuredOwner ? { configuredOwner: options.configuredOwner } : {}),
    subscribe: subscribe(registryListeners),
  });

  let closed: Promise<void> | undefined;
  return {
    catalog,
    services,
    resolver,
    async start() {
      if (closed) return;
      await sync.start();
      prober.start();
    },
    close() {
      closed ??= (async () => {
        await prober.stop();
        await sync.stop();
        catalogListeners.clear();
        registryListeners.clear();
      })();
      return closed;
    },
  };
}
