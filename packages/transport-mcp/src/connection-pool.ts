import { createHash } from "node:crypto";
import { Code, raceAbort, type ServiceTarget, TrestleError } from "@trestle/core";
import type { McpUpstream } from "./mcp-upstream.js";
import { upstreamKeyCache } from "./mcp-upstream.js";
import type { UpstreamConnection } from "./upstream-connection.js";

/**
 * Opens a connection for a pool entry; `onClosed` must be passed to the connection's hooks. `credential`: the
 * headers of the calls this connection serves (the router's credential for their caller), to send with every
 * request on it besides the upstream's own.
 */
export type OpenPooled = (
  target: ServiceTarget,
  upstream: McpUpstream,
  lane: PoolLane,
  onClosed: () => void,
  credential?: Readonly<Record<string, string>>,
) => Promise<UpstreamConnection>;

/** Connections with a call credential one target keeps at most (the least recently used go first). */
export const DEFAULT_MAX_CREDENTIALS_PER_TARGET = 64;

/**
 * Which of an upstream's connections a call uses: `interactive` ones told the upstream that the router can
 * answer its requests for input (a legacy session's capabilities are fixed at `initialize`), `plain` ones did not.
 */
export type PoolLane = "plain" | "interactive";

/** A connection lent to one call. */
export interface Lease {
  readonly connection: UpstreamConnection;
  /** The call is over: the connection may idle. Call exactly once. */
  release(): void;
  /**
   * The connection is no good (the HTTP upstream forgot its session): no later call gets it, and it is closed
   * once its calls end. Call `release` as well.
   */
  discard(): void;
}

interface Entry {
  readonly key: string;
  /** The upstream's description, the same for both lanes. */
  readonly upstreamKey: string;
  readonly targetId: string;
  ready: Promise<UpstreamConnection>;
  connection: UpstreamConnection | undefined;
  inFlight: number;
  idleTimer: NodeJS.Timeout | undefined;
  retired: boolean;
  sessionGone: boolean;
  /** Whether it serves calls with a credential of their own. */
  readonly credentialed: boolean;
  /** When a call last took it (for the bound on credentialed connections). */
  lastUsed: number;
}

/** Connections kept per target and upstream, each shared by every concurrent call to that upstream. */
export interface ConnectionPool {
  /**
   * The connection for `upstream`, opened by the first call that needs it (the others wait for the same
   * handshake); a connection whose process died is replaced. Waiting stops when `signal` aborts.
   *
   * A call with a `credential` (headers of its own: the router's credential for its caller) gets a connection
   * opened with it, shared only by the calls with the same credential: a legacy session is bound to who opened
   * it, and a new one is probed with the credential the upstream wants.
   *
   * @throws TrestleError the handshake failure (to every call that waited for it), `Unavailable` once closed.
   */
  acquire(
    target: ServiceTarget,
    upstream: McpUpstream,
    signal: AbortSignal,
    lane?: PoolLane,
    credential?: Readonly<Record<string, string>>,
  ): Promise<Lease>;
  /** Closes the connections of `targetId`, now or, for one in use, when its calls end. */
  releaseTarget(targetId: string): void;
  /** Closes every connection and refuses new calls. */
  close(): Promise<void>;
  /** How many connections are open or opening (for tests and metrics). */
  size(): number;
}

/** Options of {@link createConnectionPool}. */
export interface ConnectionPoolOptions {
  open: OpenPooled;
  /** A connection with no call for this long is closed; the next call opens a new one. */
  idleTimeoutMs: number;
  /**
   * Connections with a call credential one target keeps at most: past it, the least recently used one is retired
   * (closed once its calls end). Default {@link DEFAULT_MAX_CREDENTIALS_PER_TARGET}.
   */
  maxCredentialsPerTarget?: number;
}

/**
 * Creates a {@link ConnectionPool}. Entries are keyed by target id and upstream description together, so a
 * forward whose command line changed gets a new process, and the old one ends when its last call does; and by the
 * digest of a call's credential, when it has one.
 */
export function createConnectionPool(options: ConnectionPoolOptions): ConnectionPool {
  const entries = new Map<string, Entry>();
  const closing = new Set<Promise<void>>();
  const maxCredentials = options.maxCredentialsPerTarget ?? DEFAULT_MAX_CREDENTIALS_PER_TARGET;
  /** Each credential's digest, by the object the caller passes (the same one for as long as it is in use). */
  const digests = new WeakMap<object, string>();
  const upstreamKey = upstreamKeyCache();
  let closed = false;

  /** The credential's part of an entry's key: a digest, so that no key holds it. */
  function partitionOf(credential: Readonly<Record<string, string>> | undefined): string {
    if (credential === undefined) return "";
    let digest = digests.get(credential);
    if (digest === undefined) {
      const names = Object.keys(credential).sort();
      digest = createHash("sha256")
        .update(JSON.stringify(names.map((name) => [name.toLowerCase(), credential[name]])))
        .digest("base64url");
      digests.set(credential, digest);
    }
    return digest;
  }

  /** Makes room for one more credentialed connection of `targetId`: the least recently used one retires. */
  function boundCredentialed(targetId: string): void {
    const mine = [...entries.values()].filter((e) => e.targetId === targetId && e.credentialed);
    if (mine.length < maxCredentials) return;
    const oldest = mine.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
    retire(oldest);
  }

  function track(promise: Promise<void>): void {
    closing.add(promise);
    void promise.finally(() => closing.delete(promise));
  }

  function endEntry(entry: Entry): void {
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    clearTimeout(entry.idleTimer);
    entry.retired = true;
    track(
      entry.ready.then(
        (connection) => connection.close({ sessionGone: entry.sessionGone }),
        () => undefined,
      ),
    );
  }

  function retire(entry: Entry): void {
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    entry.retired = true;
    if (entry.inFlight === 0) endEntry(entry);
  }

  function newEntry(
    target: ServiceTarget,
    upstream: McpUpstream,
    key: string,
    described: string,
    lane: PoolLane,
    credential: Readonly<Record<string, string>> | undefined,
  ): Entry {
    const entry: Entry = {
      key,
      upstreamKey: described,
      targetId: target.id,
      // Set just below: the handshake's close hook needs the entry itself.
      ready: undefined as unknown as Promise<UpstreamConnection>,
      connection: undefined,
      inFlight: 0,
      idleTimer: undefined,
      retired: false,
      sessionGone: false,
      credentialed: credential !== undefined,
      lastUsed: Date.now(),
    };
    const onClosed = () => {
      // The process died or the session ended: the next call opens a new connection.
      if (entries.get(key) === entry) entries.delete(key);
      clearTimeout(entry.idleTimer);
      entry.retired = true;
    };
    entry.ready = options.open(target, upstream, lane, onClosed, credential).then(
      (connection) => {
        entry.connection = connection;
        return connection;
      },
      (error: unknown) => {
        if (entries.get(key) === entry) entries.delete(key);
        entry.retired = true;
        throw error;
      },
    );
    // Nobody may be waiting when a handshake fails (every caller gave up): the failure is theirs, not unhandled.
    entry.ready.catch(() => undefined);
    entries.set(key, entry);
    return entry;
  }

  function releaseOne(entry: Entry): void {
    entry.inFlight--;
    if (entry.inFlight > 0) return;
    if (entry.retired) {
      endEntry(entry);
      return;
    }
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => {
      if (entry.inFlight === 0) endEntry(entry);
    }, options.idleTimeoutMs);
    entry.idleTimer.unref();
  }

  return {
    async acquire(target, upstream, signal, lane = "plain", credential) {
      if (closed) throw new TrestleError("The MCP transport is closed", Code.Unavailable);
      const described = upstreamKey(upstream);
      const key = `${target.id}\u0000${described}\u0000${lane}\u0000${partitionOf(credential)}`;
      for (const other of entries.values()) {
        if (other.targetId === target.id && other.upstreamKey !== described) retire(other);
      }
      let entry = entries.get(key);
      if (!entry || entry.retired || entry.connection?.closed) {
        if (credential !== undefined) boundCredentialed(target.id);
        entry = newEntry(target, upstream, key, described, lane, credential);
      }
      entry.inFlight++;
      entry.lastUsed = Date.now();
      clearTimeout(entry.idleTimer);
      let connection: UpstreamConnection;
      try {
        connection = await raceAbort(entry.ready, signal);
      } catch (error) {
        releaseOne(entry);
        throw error;
      }
      const leased = entry;
      let released = false;
      return {
        connection,
        release() {
          if (released) return;
          released = true;
          releaseOne(leased);
        },
        discard() {
          leased.sessionGone = true;
          retire(leased);
        },
      };
    },
    releaseTarget(targetId) {
      for (const entry of [...entries.values()]) if (entry.targetId === targetId) retire(entry);
    },
    async close() {
      closed = true;
      for (const entry of [...entries.values()]) endEntry(entry);
      while (closing.size > 0) await Promise.all([...closing]);
    },
    size() {
      return entries.size;
    },
  };
}
