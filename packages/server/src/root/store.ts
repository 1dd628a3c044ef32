import { createRegistry, openStore, type Registry, type Store } from "@trestle/registry";
import type { Logger } from "pino";
import type { RouterConfig } from "../config.js";
import { openServerState, type ServerState } from "../state/server-state.js";
import type { RouterSecurity } from "./router-security.js";
import { configuredSecretsKeys } from "./store-secrets-keys.js";
import type { TransportsModule } from "./transports.js";

/** The store, the fronts' state on its SQL client, and the registry on it (catalog, services, leases), started. */
export interface StoreModule {
  readonly store: Store;
  /** The fronts' tables (tasks, ended sessions): the server's, in the store's database. */
  readonly state: ServerState;
  readonly registry: Registry;
}

/**
 * Opens the store (a PostgreSQL server, an in-memory store, or the embedded one in the data directory) with the
 * keys that encrypt forwards' secrets, brings the fronts' state up to date on it, and starts the registry on it: the
 * catalog and services loaded into memory, the change feed followed, the prober probing through the transports
 * under the router's registration policy.
 */
export async function openStoreModule(
  config: RouterConfig,
  transports: TransportsModule,
  security: RouterSecurity,
  logger: Logger,
): Promise<StoreModule> {
  const secretsKeys = await configuredSecretsKeys(config);
  const store = await openStore({
    ...(config.databaseUrl
      ? { databaseUrl: config.databaseUrl }
      : config.memoryStore
        ? { memory: true }
        : { dataDir: config.dataDir }),
    ...(secretsKeys ? { secretsKeys } : {}),
    logger: logger.child({ component: "store" }),
  });
  try {
    const { state, applied } = await openServerState(store.sql);
    if (applied.length > 0) logger.info({ versions: applied }, "applied the server's schema migrations");
    const registry = await createRegistry({
      store,
      transports: transports.probing,
      probeIntervalMs: config.probeIntervalMs,
      registrationGraceMs: config.registrationGraceMs,
      heartbeatTimeoutMs: config.heartbeatTimeoutMs,
      failureThreshold: config.circuitFailureThreshold,
      circuitCooldownMs: config.circuitOpenMs,
      maxInstancesPerService: config.maxInstancesPerService,
      ...security.registryOptions,
      logger: logger.child({ component: "registry" }),
    });
    security.bindRegistry(registry);
    await registry.start();
    return { store, state, registry };
  } catch (error) {
    await store.close();
    throw error;
  }
}
