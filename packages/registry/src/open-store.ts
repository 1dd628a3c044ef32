import { Code, TrestleError } from "@trestle/core";
import { type RegistryLogger, silentLogger } from "./logger.js";
import { applyRegistryMigrations } from "./migrations.js";
import { sealStoredForwards } from "./seal-stored-forwards.js";
import { withSealedForwards } from "./sealing-store.js";
import { readOrCreateSecretsKeyFile, secretsKeyFileBeside } from "./secrets-key-file.js";
import { createSecretsKeyring, generateSecretsKey, type SecretsKeyring } from "./secrets-keyring.js";
import type { SqlClient } from "./sql-client.js";
import { createSqlStore } from "./sql-store.js";
import type { Store } from "./store.js";

/** Where the embedded database lives when no other place is given: under the working directory. */
export const DEFAULT_DATA_DIR = ".trestle/data";

/** Options for {@link openStore}. Give at most one of `databaseUrl`, `memory` and `dataDir`. */
export interface StoreOptions {
  /**
   * Directory of the embedded PGlite database; created when missing. The default when neither `databaseUrl`
   * nor `memory` is given: {@link DEFAULT_DATA_DIR}. One process at a time may open it.
   */
  dataDir?: string;
  /**
   * A PostgreSQL server, `postgres://user:password@host:port/database`: for several replicas sharing one
   * catalog. Never logged.
   */
  databaseUrl?: string;
  /**
   * A throw-away embedded PGlite database, gone when closed (kept in a temporary directory, removed on close):
   * for tests and benchmarks.
   */
  memory?: boolean;
  /** Most pooled PostgreSQL connections (default 10). */
  maxConnections?: number;
  /**
   * Keys that encrypt forwards' upstreams (arguments, environment, headers…) at rest: the first encrypts, every
   * one decrypts (older keys, while a rotation re-encrypts with the first). Each at least 32 characters. Without
   * them, the embedded store uses the key file beside its data directory (`<dataDir>.key`, made at first start,
   * mode 0600), a throw-away store a random key, and a PostgreSQL store none: it then refuses forwards with
   * arguments, environment or headers (every replica needs the same key, so one must be configured).
   */
  secretsKeys?: readonly string[];
  logger?: RegistryLogger;
}

/** The keyring when no keys are given: the embedded store's own key file, a random key, or none. */
async function defaultKeyring(options: StoreOptions): Promise<SecretsKeyring | undefined> {
  if (options.databaseUrl !== undefined) return undefined;
  if (options.memory) return createSecretsKeyring([generateSecretsKey()]);
  const file = secretsKeyFileBeside(options.dataDir ?? DEFAULT_DATA_DIR);
  return createSecretsKeyring(await readOrCreateSecretsKeyFile(file));
}

/**
 * Opens the store: embedded PGlite in a data directory (the default), a throw-away PGlite database, or a PostgreSQL
 * server. Applies the schema migrations before it returns; replicas that start at once wait for each other.
 *
 * @example
 * ```ts
 * const store = await openStore({ databaseUrl: process.env.DATABASE_URL });
 * const registry = await createRegistry({ store, transports });
 * ```
 * @throws TrestleError `InvalidArgument` for contradictory options or a secrets key too short;
 * `FailedPrecondition` for a data directory (or key file) open to other users, and for stored forwards the
 * secrets keys cannot decrypt or (without a key) protect; `Unavailable` when the database cannot be opened or
 * reached.
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const logger = options.logger ?? silentLogger;
  const chosen = [options.databaseUrl !== undefined, options.memory === true, options.dataDir !== undefined];
  if (chosen.filter(Boolean).length > 1) {
    throw new TrestleError(
      "Give only one of databaseUrl, memory and dataDir when opening the store",
      Code.InvalidArgument,
    );
  }
  // Checked before anything opens: a key too short is a configuration mistake.
  const given =
    options.secretsKeys !== undefined && options.secretsKeys.length > 0
      ? createSecretsKeyring(options.secretsKeys)
      : undefined;
  let client: SqlClient;
  try {
    // Each backend's driver is loaded only when chosen: a router on the embedded store never holds pg's, and one
    // on PostgreSQL never holds PGlite's.
    if (options.databaseUrl !== undefined) {
      const { createPostgresClient } = await import("./postgres-client.js");
      client = createPostgresClient({
        connectionString: options.databaseUrl,
        logger,
        ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      });
    } else if (options.memory) {
      client = await (await import("./embedded-store.js")).openThrowawayDatabase();
    } else {
      client = await (await import("./embedded-store.js")).openEmbeddedDatabase(
        options.dataDir ?? DEFAULT_DATA_DIR,
      );
    }
  } catch (error) {
    // A refusal that says what to fix (a data directory open to other users) stays as it is.
    if (error instanceof TrestleError && error.code === Code.FailedPrecondition) throw error;
    throw new TrestleError(`The store could not be opened: ${(error as Error).message}`, Code.Unavailable, {
      cause: error,
    });
  }
  try {
    const applied = await applyRegistryMigrations(client);
    if (applied.length > 0)
      logger.info({ versions: applied, backend: client.backend }, "applied schema migrations");
  } catch (error) {
    await client.close().catch(() => undefined);
    // A connection error names host and port at most; pg never puts the password in its messages.
    throw new TrestleError(
      `The store's database could not be prepared: ${(error as Error).message}`,
      Code.Unavailable,
      {
        cause: error,
      },
    );
  }
  let keyring: SecretsKeyring | undefined;
  try {
    keyring = given ?? (await defaultKeyring(options));
    await sealStoredForwards(client, keyring, logger);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return withSealedForwards(createSqlStore(client), keyring);
}
