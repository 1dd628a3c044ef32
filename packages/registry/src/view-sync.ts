import type { CatalogChange, CatalogView } from "./catalog-view.js";
import type { RegistryLogger } from "./logger.js";
import type { RegistryEvent, ServiceView } from "./service-view.js";
import type { EntryKind, Store, StoreChange } from "./store.js";

/** Options for {@link createViewSync}. */
export interface ViewSyncOptions {
  store: Store;
  catalog: CatalogView;
  services: ServiceView;
  logger: RegistryLogger;
  /** Called with the catalog changes of each step, after the view changed. */
  onCatalogChanges(changes: readonly CatalogChange[]): void;
  /** Called with the registry events of each step, after the view changed. */
  onRegistryEvents(events: readonly RegistryEvent[]): void;
}

/** A change to the views, computed from rows already read. */
export interface ViewUpdate {
  catalog?: readonly (CatalogChange | undefined)[];
  registry?: readonly RegistryEvent[];
}

/**
 * Keeps the in-memory views in step with the store. Every change to the views, whether from this process's
 * own writes, from the change feed, or from a full resynchronisation, runs through one queue, in order, so a
 * slow read from the feed can never overwrite what a later local write applied.
 */
export interface ViewSync {
  /** Loads everything from the store (the views start from it). */
  load(): Promise<void>;
  /** Subscribes to the change feed, then reloads so nothing committed before the subscription is missed. */
  start(): Promise<void>;
  /** Runs a change to the views in order with every other one and publishes what it changed. */
  apply(update: () => ViewUpdate): Promise<void>;
  /** Reloads everything (after notifications may have been lost). */
  resync(): Promise<void>;
  /** Resolves once every change queued so far has been applied. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** Creates a {@link ViewSync}. */
export function createViewSync(options: ViewSyncOptions): ViewSync {
  const { store, logger } = options;
  let tail: Promise<void> = Promise.resolve();
  let pending: StoreChange[] = [];
  let flushQueued = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  /** After a failed read the view may miss changes: reload until a reload succeeds. */
  function retryReload(error: unknown): void {
    logger.warn({ err: (error as Error).message }, "reading changes failed; resynchronising shortly");
    if (retryTimer || stopped) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (!stopped) void enqueue(reload).catch(retryReload);
    }, 1000);
    retryTimer.unref();
  }

  function publish(update: ViewUpdate): void {
    const changes = (update.catalog ?? []).filter((c): c is CatalogChange => c !== undefined);
    if (changes.length > 0) options.onCatalogChanges(changes);
    if (update.registry && update.registry.length > 0) options.onRegistryEvents(update.registry);
  }

  function enqueue(task: () => Promise<void>): Promise<void> {
    const run = tail.then(task);
    tail = run.catch((error: unknown) => {
      logger.error({ err: (error as Error).message }, "updating the in-memory catalog failed");
    });
    return run;
  }

  async function reload(): Promise<void> {
    const snapshot = await store.loadSnapshot();
    publish({
      catalog: options.catalog.replaceAll(snapshot),
      registry: options.services.replaceAll(snapshot.services),
    });
  }

  /** Applies every notification received so far, reading the rows they name in one query per kind. */
  async function flush(): Promise<void> {
    flushQueued = false;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const upserts = new Map<string, Set<string>>();
    for (const change of batch) {
      if (change.op !== "upsert") continue;
      const key = change.kind === "namespace" ? change.namespace : change.id;
      let set = upserts.get(change.kind);
      if (!set) {
        set = new Set();
        upserts.set(change.kind, set);
      }
      set.add(key);
    }
    const [namespaces, services, ...entryLists] = await Promise.all([
      store.fetchNamespaces([...(upserts.get("namespace") ?? [])]),
      store.fetchServices([...(upserts.get("service") ?? [])]),
      ...(["tool", "resource", "prompt", "forward"] as const).map((kind) =>
        store.fetchEntries(kind, [...(upserts.get(kind) ?? [])]),
      ),
    ]);
    const namespaceRows = new Map(namespaces.map((n) => [n.name, n]));
    const serviceRows = new Map(services.map((s) => [s.id, s]));
    const entryRows = new Map(entryLists.flat().map((e) => [`${e.kind}\u0000${e.id}`, e]));
    const catalog: (CatalogChange | undefined)[] = [];
    const registry: RegistryEvent[] = [];
    // In notification order: a row read now may be newer than its notification, never older than the view.
    for (const change of batch) {
      switch (change.kind) {
        case "namespace": {
          if (change.op === "delete") {
            catalog.push(
              ...options.catalog.removeNamespace(change.namespace, change.id, change.version, "feed"),
            );
          } else {
            const row = namespaceRows.get(change.namespace);
            if (row) catalog.push(...options.catalog.applyNamespace(row, "feed"));
          }
          break;
        }
        case "service": {
          if (change.op === "delete") {
            registry.push(...options.services.remove(change.id, change.version, "feed"));
          } else {
            const row = serviceRows.get(change.id);
            if (row) registry.push(...options.services.apply(row, "feed"));
          }
          break;
        }
        default: {
          const kind: EntryKind = change.kind;
          if (change.op === "delete") {
            catalog.push(
              options.catalog.removeEntry(
                kind,
                change.namespace,
                change.key,
                change.id,
                change.version,
                "feed",
              ),
            );
          } else {
            const row = entryRows.get(`${kind}\u0000${change.id}`);
            if (row) catalog.push(options.catalog.applyEntry(row, "feed"));
          }
        }
      }
    }
    publish({ catalog, registry });
  }

  return {
    load() {
      return enqueue(reload);
    },
    async start() {
      if (unsubscribe || stopped) return;
      unsubscribe = await store.subscribe(
        (change) => {
          pending.push(change);
          if (!flushQueued) {
            flushQueued = true;
            void enqueue(flush).catch(retryReload);
          }
        },
        () => {
          logger.info({}, "resynchronising the in-memory catalog and registry");
          void enqueue(reload).catch(retryReload);
        },
      );
      await enqueue(reload);
    },
    apply(update) {
      return enqueue(async () => publish(update()));
    },
    resync() {
      return enqueue(reload);
    },
    idle() {
      return tail;
    },
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const stop = unsubscribe;
      unsubscribe = undefined;
      if (stop) await stop();
      await tail;
    },
  };
}
