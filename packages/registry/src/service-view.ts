import type { HealthState, ServiceType } from "@trestle/core";
import type { ChangeOrigin } from "./catalog-view.js";
import { deepFreeze } from "./deep-freeze.js";
import type { RegisteredService } from "./store.js";

/**
 * A change to the service registry, fired once per process for every registration, deregistration and health
 * change, whichever replica made it.
 */
export type RegistryEvent =
  | { type: "registered"; service: RegisteredService; origin: ChangeOrigin }
  | { type: "updated"; service: RegisteredService; previous: RegisteredService; origin: ChangeOrigin }
  | { type: "deregistered"; service: RegisteredService; origin: ChangeOrigin }
  | {
      type: "health-changed";
      service: RegisteredService;
      previous: HealthState;
      origin: ChangeOrigin;
    };

/** The registry in memory, indexed by route, so the resolver finds candidates without the database. */
export interface ServiceView {
  get(id: string): RegisteredService | undefined;
  all(): IterableIterator<RegisteredService>;
  /** Ids of services of exactly this type and name. */
  idsFor(serviceType: ServiceType, serviceName: string): ReadonlySet<string> | undefined;
  /** Ids of code execution engines of this engine type running this language (case-insensitive). */
  idsForEngine(engineType: string, language: string): ReadonlySet<string> | undefined;
  apply(service: RegisteredService, origin: ChangeOrigin): RegistryEvent[];
  remove(id: string, version: number, origin: ChangeOrigin): RegistryEvent[];
  replaceAll(services: readonly RegisteredService[]): RegistryEvent[];
  readonly size: number;
}

const EMPTY: ReadonlySet<string> = new Set();

function routeKey(serviceType: string, serviceName: string): string {
  return `${serviceType}\u0000${serviceName}`;
}

function engineKey(engineType: string, language: string): string {
  return `${engineType.toLowerCase()}\u0000${language.toLowerCase()}`;
}

function sameTarget(a: RegisteredService, b: RegisteredService): boolean {
  return JSON.stringify(a.target) === JSON.stringify(b.target);
}

/** Creates an empty {@link ServiceView}. */
export function createServiceView(): ServiceView {
  const services = new Map<string, RegisteredService>();
  const routes = new Map<string, Set<string>>();
  const engines = new Map<string, Set<string>>();

  const addTo = (index: Map<string, Set<string>>, key: string, id: string) => {
    let set = index.get(key);
    if (!set) {
      set = new Set();
      index.set(key, set);
    }
    set.add(id);
  };
  const removeFrom = (index: Map<string, Set<string>>, key: string, id: string) => {
    const set = index.get(key);
    if (!set) return;
    set.delete(id);
    if (set.size === 0) index.delete(key);
  };
  const keysOf = (s: RegisteredService) => {
    const t = s.target;
    return {
      route: routeKey(t.serviceType, t.serviceName),
      engine:
        t.serviceType === "code-execution-engine" &&
        t.serviceSubType !== undefined &&
        t.languageName !== undefined
          ? engineKey(t.serviceSubType, t.languageName)
          : undefined,
    };
  };
  const index = (s: RegisteredService) => {
    const keys = keysOf(s);
    addTo(routes, keys.route, s.id);
    if (keys.engine) addTo(engines, keys.engine, s.id);
  };
  const unindex = (s: RegisteredService) => {
    const keys = keysOf(s);
    removeFrom(routes, keys.route, s.id);
    if (keys.engine) removeFrom(engines, keys.engine, s.id);
  };

  const view: ServiceView = {
    get: (id) => services.get(id),
    all: () => services.values(),
    idsFor: (serviceType, serviceName) => routes.get(routeKey(serviceType, serviceName)) ?? EMPTY,
    idsForEngine: (engineType, language) => engines.get(engineKey(engineType, language)) ?? EMPTY,
    apply(service, origin) {
      const previous = services.get(service.id);
      if (previous && previous.version >= service.version) return [];
      const frozen = deepFreeze({ ...service, target: { ...service.target } });
      if (previous) unindex(previous);
      services.set(service.id, frozen);
      index(frozen);
      if (!previous) return [{ type: "registered", service: frozen, origin }];
      const events: RegistryEvent[] = [];
      if (!sameTarget(previous, frozen)) events.push({ type: "updated", service: frozen, previous, origin });
      if (previous.health !== frozen.health) {
        events.push({ type: "health-changed", service: frozen, previous: previous.health, origin });
      }
      return events;
    },
    remove(id, version, origin) {
      const previous = services.get(id);
      if (!previous || previous.version > version) return [];
      unindex(previous);
      services.delete(id);
      return [{ type: "deregistered", service: previous, origin }];
    },
    replaceAll(next) {
      const events: RegistryEvent[] = [];
      const ids = new Set(next.map((s) => s.id));
      for (const existing of [...services.values()]) {
        if (!ids.has(existing.id)) events.push(...view.remove(existing.id, existing.version, "resync"));
      }
      for (const service of next) events.push(...view.apply(service, "resync"));
      return events;
    },
    get size() {
      return services.size;
    },
  };
  return view;
}
