import { type HealthStatus, healthFromProbeError, type ServiceTarget, TrestleError } from "@trestle/core";
import type { TransportSelector } from "@trestle/core/routing";
import type { Clock } from "./clock.js";
import type { RegistryLogger } from "./logger.js";
import type { ServiceView } from "./service-view.js";
import type { RegisteredService, Store } from "./store.js";
import type { ViewSync } from "./view-sync.js";

/** Name of the lease that makes one replica at a time the prober. */
export const PROBER_LEASE = "health-prober";

/** Options for {@link createHealthProber}. */
export interface HealthProberOptions {
  store: Store;
  view: ServiceView;
  sync: ViewSync;
  clock: Clock;
  logger: RegistryLogger;
  /** Probes go through it; without it, health comes from heartbeats alone. */
  transports?: TransportSelector | undefined;
  /** Identifies this process as the holder of the prober lease. */
  owner: string;
  intervalMs: number;
  concurrency: number;
  timeoutMs: number;
  /** A service with no sign of life for this long is marked down. */
  heartbeatTimeoutMs: number;
  /** A service with no sign of life for this long is removed (0: never). */
  staleServiceTtlMs: number;
  /** Why an instance must not be reached (then it is not probed), or `undefined`; see `RegistryOptions`. */
  instancePolicy?: (service: RegisteredService) => Promise<string | undefined>;
}

/**
 * Probes every registered service on an interval, records health changes (which the change feed carries to
 * every replica), marks down services that went silent and removes long-gone ones. With several replicas on
 * one database, one of them (the holder of a lease in the store) runs the round, so a service is probed once
 * per interval, not once per replica.
 */
export interface HealthProber {
  start(): void;
  /** Runs one round now (when this process holds the lease). */
  runRound(): Promise<void>;
  /** Probes one service now, whoever holds the lease (a new registration). */
  probe(service: RegisteredService): Promise<void>;
  stop(): Promise<void>;
}

async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** Creates a {@link HealthProber}. */
export function createHealthProber(options: HealthProberOptions): HealthProber {
  const { store, view, sync, clock, logger, transports } = options;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let started = false;
  let round: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();
  /**
   * When this prober last wrote each reached service's `last_seen_at`. A touch is a write (and, on the embedded
   * store, most of an idle router's CPU): it is needed only often enough that the heartbeat timeout never finds a
   * service this prober reaches silent, so a service touched within a third of that timeout is not touched again.
   */
  const touchedAt = new Map<string, number>();
  const touchEveryMs = options.heartbeatTimeoutMs / 3;

  async function touch(ids: readonly string[]): Promise<void> {
    const now = clock.now();
    const due = ids.filter((id) => !(now - (touchedAt.get(id) ?? Number.NEGATIVE_INFINITY) < touchEveryMs));
    if (due.length === 0) return;
    await store.touchServices(due, now);
    for (const id of due) touchedAt.set(id, now);
  }

  /**
   * Probes one instance, unless the instance policy refuses it: then it is unhealthy with the reason, and not
   * `reached` (no sign of life is recorded, so it ages out).
   */
  async function probeOnce(service: RegisteredService): Promise<{ status: HealthStatus; reached: boolean }> {
    const refusal = await refusalOf(service);
    if (refusal !== undefined) return { status: { state: "unhealthy", message: refusal }, reached: false };
    const status = await probeTarget(service.target);
    return { status, reached: status.state !== "down" };
  }

  async function refusalOf(service: RegisteredService): Promise<string | undefined> {
    if (!options.instancePolicy) return undefined;
    try {
      return await options.instancePolicy(service);
    } catch (error) {
      // A policy that cannot decide (a failing DNS lookup) refuses: closed unless shown to be allowed.
      return `Its address could not be checked: ${TrestleError.from(error).rawMessage}`;
    }
  }

  async function probeTarget(target: ServiceTarget): Promise<HealthStatus> {
    if (!transports) return { state: "pending" };
    let transport: ReturnType<TransportSelector["transportFor"]>;
    try {
      transport = transports.transportFor(target);
    } catch (error) {
      // No transport speaks its protocol: this router cannot reach it, however healthy it is.
      return { state: "unhealthy", message: TrestleError.from(error).rawMessage };
    }
    try {
      return await transport.probeHealth(target, { timeoutMs: options.timeoutMs });
    } catch (error) {
      return healthFromProbeError(error);
    }
  }

  async function record(service: RegisteredService, status: HealthStatus): Promise<void> {
    if (stopped) return;
    const changed = await store.recordHealth(service.id, status.state, status.message, clock.now());
    if (changed) {
      if (status.state !== "healthy") {
        logger.warn(
          {
            serviceId: service.id,
            serviceName: service.target.serviceName,
            health: status.state,
            reason: status.message,
          },
          "service health changed",
        );
      } else {
        logger.info({ serviceId: service.id, serviceName: service.target.serviceName }, "service is healthy");
      }
      await sync.apply(() => ({ registry: view.apply(changed, "local") }));
    }
  }

  function track(work: Promise<void>): Promise<void> {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return work;
  }

  async function roundOnce(): Promise<void> {
    const now = clock.now();
    if (!(await store.claimLease(PROBER_LEASE, options.owner, now, options.intervalMs * 3))) return;
    if (transports) {
      const services = [...view.all()];
      const reached: string[] = [];
      await forEachLimited(services, options.concurrency, async (service) => {
        const { status, reached: alive } = await probeOnce(service);
        if (alive) reached.push(service.id);
        // The view follows the store through the feed: write only what changes.
        if (view.get(service.id)?.health !== status.state) await record(service, status);
      });
      await touch(reached);
      // Services gone from the view are forgotten (a service registered again gets a fresh last_seen_at anyway).
      for (const id of touchedAt.keys()) if (!view.get(id)) touchedAt.delete(id);
    }
    const after = clock.now();
    const silenced = await store.markUnseenDown(after - options.heartbeatTimeoutMs, after);
    const removed =
      options.staleServiceTtlMs > 0 ? await store.removeUnseen(after - options.staleServiceTtlMs) : [];
    if (silenced.length > 0 || removed.length > 0) {
      for (const s of silenced) {
        logger.warn(
          { serviceId: s.id, serviceName: s.target.serviceName },
          "service went silent; marked down",
        );
      }
      for (const s of removed) {
        logger.info({ serviceId: s.id, serviceName: s.target.serviceName }, "removed a long-silent service");
      }
      await sync.apply(() => ({
        registry: [
          ...silenced.flatMap((s) => view.apply(s, "local")),
          ...removed.flatMap((s) => view.remove(s.id, s.version, "local")),
        ],
      }));
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void prober.runRound().finally(schedule);
    }, options.intervalMs);
    timer.unref();
  }

  const prober: HealthProber = {
    start() {
      if (started || stopped) return;
      started = true;
      void prober.runRound().finally(schedule);
    },
    runRound() {
      round ??= roundOnce()
        .catch((error: unknown) => {
          if (!stopped) logger.error({ err: (error as Error).message }, "a health probing round failed");
        })
        .finally(() => {
          round = undefined;
        });
      return round;
    },
    probe(service) {
      if (!transports || stopped) return Promise.resolve();
      return track(
        (async () => {
          const { status, reached } = await probeOnce(service);
          await record(service, status);
          if (reached) {
            const now = clock.now();
            await store.touchServices([service.id], now);
            touchedAt.set(service.id, now);
          }
        })().catch((error: unknown) => {
          if (!stopped)
            logger.warn({ serviceId: service.id, err: (error as Error).message }, "probing a service failed");
        }),
      );
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await round;
      await Promise.all([...inFlight]);
      await store.releaseLease(PROBER_LEASE, options.owner).catch(() => undefined);
    },
  };
  return prober;
}
