/**
 * Trestle's catalog (tools, resources, prompts, namespaces) and service registry, kept in PostgreSQL —
 * embedded PGlite on one machine, a PostgreSQL server for several replicas — with an in-memory view in every
 * process that the change feed keeps current, a health prober, and the health-aware `ServiceResolver`. Another
 * owner of state on the same database (the server, for its fronts' tables) works on the store's SQL client
 * (`Store.sql`) with migrations of its own (`applyMigrations`).
 *
 * @packageDocumentation
 */
export type {
  Catalog,
  DeleteNamespaceOptions,
  EntryUpdate,
  UpdateOptions,
} from "./catalog.js";
export {
  CATALOG_LIMITS,
  forwardInputSchema,
  forwardSchema,
  labelsSchema,
  nameSchema,
  namespaceEntrySchema,
  namespaceInputSchema,
  parseForward,
  parseNamespace,
  parsePrompt,
  parseResource,
  parseTool,
  parseWithSchema,
  promptInputSchema,
  promptSchema,
  resourceInputSchema,
  resourceSchema,
  toolInputSchema,
  toolSchema,
} from "./catalog-schemas.js";
export type { CatalogChange, ChangeOrigin } from "./catalog-view.js";
export type { CircuitState } from "./circuit-breaker.js";
export { type Clock, systemClock } from "./clock.js";
export {
  type LabelExpression,
  MAX_LABEL_EXPRESSION_LENGTH,
  matchesLabels,
  parseLabelExpression,
} from "./label-expression.js";
export { type RegistryLogger, silentLogger } from "./logger.js";
export { DEFAULT_NAMESPACE, isNamespaceName, normalizeNamespace } from "./namespace-name.js";
export { DEFAULT_DATA_DIR, openStore, type StoreOptions } from "./open-store.js";
export { createRegistry, type Registry, type RegistryOptions } from "./registry.js";
export { applyMigrations, type Migration, type MigrationOptions } from "./schema-migrations.js";
export { readSecretsKeyFile, secretsKeyFileBeside } from "./secrets-key-file.js";
export {
  createSecretsKeyring,
  generateSecretsKey,
  SECRETS_KEY_MIN_LENGTH,
  type SealedValue,
  type SecretsKeyring,
  secretsKeyId,
} from "./secrets-keyring.js";
export type { ServiceRegistry } from "./service-registry.js";
export type { HealthAwareResolver } from "./service-resolver.js";
export {
  parseRegistration,
  registrationSchema,
  type ServiceRegistration,
} from "./service-target-schema.js";
export type { RegistryEvent } from "./service-view.js";
export type { SqlClient, SqlExecutor, StoreSqlClient } from "./sql-client.js";
export type {
  EntryKind,
  HealthRecord,
  RegisteredService,
  RegistrationActor,
  Store,
  StoreChange,
  StoredEntry,
  StoredNamespace,
  StoreSnapshot,
} from "./store.js";
