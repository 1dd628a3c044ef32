import type { HealthState, ServiceTarget } from "@trestle/core";
import type { StoreSqlClient } from "./sql-client.js";

/** The kinds of catalog entry. A forward is an MCP server whose catalog is imported into its namespace. */
export type EntryKind = "tool" | "resource" | "prompt" | "forward";

/** A catalog entry as stored: the reference (`document`) with the columns that make it unique. */
export interface StoredEntry {
  kind: EntryKind;
  /** "" for the default namespace. */
  namespace: string;
  /** What identifies it in its namespace: a tool's or prompt's name, a resource's location. */
  key: string;
  /** Its name (unique in its namespace too; for tools and prompts the same as `key`). */
  name: string;
  id: string;
  /** The whole reference, `id` and `namespace` included. */
  document: Record<string, unknown>;
  /** Increases with every write to any entry: a later write always has a higher version. */
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** A namespace as stored. */
export interface StoredNamespace {
  name: string;
  id: string;
  /** The namespace's own fields besides name and id: description, labels. */
  document: Record<string, unknown>;
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** A registered service with its health and activity. */
export interface RegisteredService {
  id: string;
  target: ServiceTarget;
  health: HealthState;
  healthMessage?: string;
  /** When `health` last changed (the grace period of a pending service counts from here). */
  healthChangedAt: number;
  registeredAt: number;
  /** Last sign of life: registration, heartbeat, or a probe that reached it. */
  lastSeenAt: number;
  lastHeartbeatAt?: number;
  version: number;
  /**
   * The principal (token name, or `anonymous`) that registered it; only it, or an admin, may re-register,
   * heartbeat or deregister this instance, or add instances of its service name. Absent for registrations
   * made before registrations were bound (the next registration claims them).
   */
  registeredBy?: string;
}

/** Who asks for a change to a registration. */
export interface RegistrationActor {
  /** The principal's name (a token's name, or `anonymous`). */
  principal: string;
  /** An admin may change any registration, and keeps the original principal's binding when it does. */
  admin: boolean;
}

/** One entry of a service's health history. */
export interface HealthRecord {
  at: number;
  state: HealthState;
  message?: string;
}

/**
 * What changed, as published on the change feed (PostgreSQL NOTIFY, at commit): small, naming the row and its
 * version; readers fetch the row itself.
 */
export type StoreChange =
  | { kind: EntryKind; op: "upsert" | "delete"; namespace: string; key: string; id: string; version: number }
  | { kind: "namespace"; op: "upsert" | "delete"; namespace: string; id: string; version: number }
  | { kind: "service"; op: "upsert" | "delete"; id: string; version: number };

/** Everything the store holds that the in-memory views mirror, read at one instant. */
export interface StoreSnapshot {
  namespaces: StoredNamespace[];
  entries: StoredEntry[];
  services: RegisteredService[];
}

/** A new catalog entry, validated. */
export interface NewEntry {
  kind: EntryKind;
  namespace: string;
  key: string;
  name: string;
  id: string;
  document: Record<string, unknown>;
}

/** A registration, validated, as the store records it. */
export interface ServiceRecordInput {
  /** The id the capability asked to keep, if any. */
  requestedId?: string;
  /** The id to use when the registration is new and none was requested. */
  newId: string;
  /** The target without its id. */
  target: Omit<ServiceTarget, "id">;
  /** Identifies the endpoint (type, name, address, engine): one registration per endpoint. */
  endpoint: string;
  /** Who registers: a new instance is bound to it; an instance or name bound to another refuses it. */
  actor: RegistrationActor;
  /** Most instances of one service name; a new instance beyond it is refused. Unlimited when absent. */
  maxInstancesPerService?: number;
  /**
   * The principal the configuration binds the service name to: only it (or an admin) may register under the
   * name, whoever registered it before, and the store records it as the name's owner. Absent: the name's
   * recorded owner (its first registrant, kept after its instances are gone) holds it.
   */
  configuredOwner?: string;
}

/** What {@link Store.registerService} did. */
export interface RegistrationResult {
  service: RegisteredService;
  /** True when no registration with this id existed before. */
  created: boolean;
  /** Other registrations of the same endpoint, removed because this one supersedes them. */
  replaced: RegisteredService[];
}

/**
 * The durable state of the catalog and the registry: embedded PGlite or PostgreSQL behind the same SQL.
 * Every write is one transaction that also publishes its {@link StoreChange}s, delivered to every subscriber
 * (in every process on the same database) when it commits. Failures are `TrestleError`s:
 * `AlreadyExists`, `NotFound`, `Aborted` (a version did not match), `FailedPrecondition`.
 *
 * Use it through {@link createRegistry}; its methods are public for tests and tools.
 */
export interface Store {
  /** Which database holds the state. */
  readonly backend: "pglite" | "postgres";
  /**
   * The store's SQL client, for another owner of state on the same database (the server keeps its fronts' tables
   * there): its own tables, its own migrations ({@link applyMigrations} with its own table and lock), its own
   * notification channels. Connection failures reject as the store's methods do (`Unavailable`, naming the store,
   * never the driver's text). The store closes it.
   */
  readonly sql: StoreSqlClient;

  /** Reads every namespace, entry and service at one instant. */
  loadSnapshot(): Promise<StoreSnapshot>;
  /** The entries of `kind` with these ids that still exist. */
  fetchEntries(kind: EntryKind, ids: readonly string[]): Promise<StoredEntry[]>;
  /** The namespaces with these names that still exist. */
  fetchNamespaces(names: readonly string[]): Promise<StoredNamespace[]>;
  /** The services with these ids that still exist. */
  fetchServices(ids: readonly string[]): Promise<RegisteredService[]>;

  /** Creates a namespace. @throws `AlreadyExists`. */
  insertNamespace(
    namespace: { name: string; id: string; document: Record<string, unknown> },
    now: number,
  ): Promise<StoredNamespace>;
  /**
   * Deletes a namespace; with `cascade`, its entries too.
   * @throws `NotFound`; `FailedPrecondition` for the default namespace, or when it has entries and not `cascade`.
   */
  deleteNamespace(
    name: string,
    cascade: boolean,
  ): Promise<{ namespace: StoredNamespace; entries: StoredEntry[] }>;

  /** Adds an entry. @throws `AlreadyExists` (key, name or id taken), `NotFound` (no such namespace). */
  insertEntry(entry: NewEntry, now: number): Promise<StoredEntry>;
  /**
   * Updates an entry under a row lock: `update` gets the current row and returns the new name and document,
   * so concurrent updates apply one after the other and none is lost. `update` may run more than once.
   * @throws `NotFound`; `Aborted` when `expectedVersion` is given and differs; whatever `update` throws.
   */
  updateEntry(
    kind: EntryKind,
    namespace: string,
    key: string,
    update: (current: StoredEntry) => { name: string; document: Record<string, unknown> },
    options: { expectedVersion?: number; now: number },
  ): Promise<StoredEntry>;
  /** Deletes an entry. @throws `NotFound`. */
  deleteEntry(kind: EntryKind, namespace: string, key: string): Promise<StoredEntry>;
  /** Deletes the entries of a namespace that `select` picks (rows locked while it decides). */
  deleteEntries(
    kind: EntryKind,
    namespace: string,
    select: (entry: StoredEntry) => boolean,
  ): Promise<StoredEntry[]>;

  /**
   * Registers a service, or updates the registration with the requested id or the same endpoint.
   * A service name belongs to its configured owner, else to the first principal that registered under it, for
   * good: its instances going (deregistered, stale) does not free it.
   * @throws `PermissionDenied` when the instance or its service name is bound to another principal (and the
   * actor is no admin); `FailedPrecondition` when the service name has `maxInstancesPerService` instances.
   */
  registerService(input: ServiceRecordInput, now: number): Promise<RegistrationResult>;
  /**
   * Removes a registration. @throws `NotFound`; `PermissionDenied` when it is bound to another principal and
   * `actor` is no admin (anyone may when `actor` is absent).
   */
  deregisterService(id: string, actor?: RegistrationActor): Promise<RegisteredService>;
  /**
   * Records a heartbeat; with `markHealthy`, a heartbeat also makes the service healthy (no prober runs).
   * @throws `NotFound` (the capability should register again); `PermissionDenied` as for deregistration.
   */
  recordHeartbeat(
    id: string,
    now: number,
    markHealthy: boolean,
    actor?: RegistrationActor,
  ): Promise<RegisteredService>;
  /** Records a health state; writes only when it changed. @returns the service when it changed. */
  recordHealth(
    id: string,
    state: HealthState,
    message: string | undefined,
    now: number,
  ): Promise<RegisteredService | undefined>;
  /** Notes a sign of life from each service (probes that reached them), without publishing a change. */
  touchServices(ids: readonly string[], now: number): Promise<void>;
  /** Marks down every service not seen since `seenBefore`. @returns those that changed. */
  markUnseenDown(seenBefore: number, now: number): Promise<RegisteredService[]>;
  /** Removes every service not seen since `seenBefore`. @returns those removed. */
  removeUnseen(seenBefore: number): Promise<RegisteredService[]>;
  /** Every registration, with activity as of now. */
  listServices(): Promise<RegisteredService[]>;
  /** The latest health changes of a service, newest first. */
  healthHistory(id: string, limit?: number): Promise<HealthRecord[]>;
  /**
   * Takes or renews the lease `name` for `owner` until `now + ttlMs`; succeeds when free, expired, or already
   * held by `owner`. Lets one replica of many run a periodic job.
   */
  claimLease(name: string, owner: string, now: number, ttlMs: number): Promise<boolean>;
  /** Gives a lease up, if `owner` holds it. */
  releaseLease(name: string, owner: string): Promise<void>;

  /**
   * Subscribes to the change feed: `onChange` for every committed change (this process's and other
   * replicas'), `onResync` when notifications may have been lost (the listening connection came back).
   */
  subscribe(onChange: (change: StoreChange) => void, onResync: () => void): Promise<() => Promise<void>>;
  /** Closes the database connections (and an embedded database). */
  close(): Promise<void>;
}
