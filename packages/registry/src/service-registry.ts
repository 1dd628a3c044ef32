import { randomUUID } from "node:crypto";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import { idSchema } from "./catalog-schemas.js";
import type { Clock } from "./clock.js";
import type { HealthProber } from "./health-prober.js";
import { parseRegistration, type ServiceRegistration } from "./service-target-schema.js";
import type { RegistryEvent, ServiceView } from "./service-view.js";
import type { HealthRecord, RegisteredService, RegistrationActor, Store } from "./store.js";
import type { ViewSync } from "./view-sync.js";

/**
 * Capability services: registration, heartbeats, health and activity. State lives in the store, so every
 * replica shares it; reads of `get` and `list` come from memory.
 */
export interface ServiceRegistry {
  /**
   * Registers a service (Wanaku's `ServiceTarget` JSON). Without an `id` it gets a new one, unless the same
   * endpoint (type, name, host, port, engine) is registered already, whose id it keeps; with an `id` it keeps
   * that id, and a registration with the same id (or another one of the same endpoint) is replaced: one
   * entry, never two. A new or moved service starts `pending` and is probed at once.
   *
   * A new instance is bound to `actor` (default: anonymous, no admin): no other principal may then re-register,
   * move, heartbeat or deregister it; an admin may. A service name belongs to the principal the configuration
   * binds it to (`configuredOwner`), else to the first principal that registered under it, and stays theirs when
   * its instances are gone: no other principal (but an admin) may register under it.
   *
   * @returns the target with its id.
   * @throws TrestleError `InvalidArgument` naming each bad field; `PermissionDenied` when the instance or its
   * service name is bound to another principal; `FailedPrecondition` when the service name already has
   * `maxInstancesPerService` instances.
   */
  register(registration: ServiceRegistration, actor?: RegistrationActor): Promise<ServiceTarget>;
  /**
   * Removes a registration. Without `actor`, anyone may (the registry's own housekeeping).
   * @throws TrestleError `NotFound`, `InvalidArgument`; `PermissionDenied` when bound to another principal.
   */
  deregister(id: string, actor?: RegistrationActor): Promise<ServiceTarget>;
  /**
   * Records a heartbeat. Without a prober (no transports), heartbeats are what makes a service healthy.
   * @throws TrestleError `NotFound` when the id is unknown: the capability should register again;
   * `PermissionDenied` when it is bound to another principal than `actor`.
   */
  heartbeat(id: string, actor?: RegistrationActor): Promise<void>;
  /** A registered service with its health, from memory. */
  get(id: string): RegisteredService | undefined;
  /** Every registered service with its health, from memory (activity times as of its last change). */
  list(): RegisteredService[];
  /** Every registered service with its health and current activity times, from the store. */
  listWithActivity(): Promise<RegisteredService[]>;
  /** The latest health changes of a service, newest first. */
  healthHistory(id: string): Promise<HealthRecord[]>;
  /**
   * Removes services with no sign of life (registration, heartbeat, probe answer) for `olderThanMs`
   * (default: the registry's `staleServiceTtlMs`). The prober does this on its own every round.
   */
  cleanupStale(olderThanMs?: number): Promise<RegisteredService[]>;
  /** Calls `listener` on every registration, deregistration, update and health change, from any replica. */
  onEvent(listener: (event: RegistryEvent) => void): () => void;
}

/** Options for {@link createServiceRegistry}. */
export interface ServiceRegistryOptions {
  store: Store;
  view: ServiceView;
  sync: ViewSync;
  clock: Clock;
  prober: HealthProber;
  /** When false (no transports), heartbeats make services healthy. */
  probing: boolean;
  staleServiceTtlMs: number;
  /** Most instances of one service name (unlimited when absent). */
  maxInstancesPerService?: number;
  /** The principal the configuration binds a service name to, if any. */
  configuredOwner?: (serviceName: string) => string | undefined;
  subscribe(listener: (event: RegistryEvent) => void): () => void;
}

/** Identifies an endpoint: what makes two registrations the same service instance. */
export function endpointOf(target: Omit<ServiceTarget, "id">): string {
  return JSON.stringify([
    target.serviceType,
    target.serviceName,
    target.host.toLowerCase(),
    target.port,
    target.serviceSubType ?? "",
    target.languageName ?? "",
  ]);
}

function checkId(id: unknown): string {
  const parsed = idSchema.safeParse(id);
  if (!parsed.success) {
    throw new TrestleError(
      `Invalid service id ${JSON.stringify(typeof id === "string" ? id.slice(0, 80) : id)}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      Code.InvalidArgument,
    );
  }
  return parsed.data;
}

/** Who registers when no one is named: the principal of a request without a token on an open router. */
const ANONYMOUS: RegistrationActor = Object.freeze({ principal: "anonymous", admin: false });

/** Creates the {@link ServiceRegistry}. */
export function createServiceRegistry(options: ServiceRegistryOptions): ServiceRegistry {
  const { store, view, sync, clock, prober } = options;
  return {
    async register(input, actor = ANONYMOUS) {
      const registration = parseRegistration(input);
      const { id: requestedId, ...target } = registration;
      const configuredOwner = options.configuredOwner?.(target.serviceName);
      const result = await store.registerService(
        {
          ...(requestedId ? { requestedId } : {}),
          newId: randomUUID(),
          target,
          endpoint: endpointOf(target),
          actor,
          ...(options.maxInstancesPerService !== undefined
            ? { maxInstancesPerService: options.maxInstancesPerService }
            : {}),
          ...(configuredOwner !== undefined ? { configuredOwner } : {}),
        },
        clock.now(),
      );
      await sync.apply(() => ({
        registry: [
          ...result.replaced.flatMap((s) => view.remove(s.id, result.service.version, "local")),
          ...view.apply(result.service, "local"),
        ],
      }));
      if (result.service.health !== "healthy") void prober.probe(result.service);
      return result.service.target;
    },
    async deregister(id, actor) {
      const removed = await store.deregisterService(checkId(id), actor);
      await sync.apply(() => ({ registry: view.remove(removed.id, removed.version, "local") }));
      return removed.target;
    },
    async heartbeat(id, actor) {
      const service = await store.recordHeartbeat(checkId(id), clock.now(), !options.probing, actor);
      await sync.apply(() => ({ registry: view.apply(service, "local") }));
    },
    get: (id) => view.get(id),
    list: () => [...view.all()],
    listWithActivity: () => store.listServices(),
    healthHistory: (id) => store.healthHistory(checkId(id)),
    async cleanupStale(olderThanMs = options.staleServiceTtlMs) {
      const removed = await store.removeUnseen(clock.now() - olderThanMs);
      await sync.apply(() => ({ registry: removed.flatMap((s) => view.remove(s.id, s.version, "local")) }));
      return removed;
    },
    onEvent: (listener) => options.subscribe(listener),
  };
}
