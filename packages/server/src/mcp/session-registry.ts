import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { SseStream } from "../http/sse.js";

/** Log levels of MCP's logging/setLevel, most verbose first. */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;
/** One MCP log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a method handler may read and set of the session a request belongs to (HTTP session or stdio). */
export interface SessionState {
  readonly id: string;
  /** The minimum level of log messages the client asked for; undefined until it sets one. */
  logLevel: LogLevel | undefined;
  /** The revision negotiated at `initialize` (stdio: set then). */
  protocolVersion?: string;
  /** What the client declared it can answer at `initialize` (sampling, elicitation, roots). */
  clientCapabilities?: Readonly<Record<string, unknown>>;
  /** The resource URIs the client subscribed to (`resources/subscribe`), when it did. */
  resourceSubscriptions?: Set<string>;
}

/** One MCP session: what a client negotiated, where its server-initiated messages go. */
export interface McpSession extends SessionState {
  readonly namespace: string;
  readonly protocolVersion: string;
  /** The principal (token name, or `anonymous`) that created it; only that principal may use it. */
  readonly principal: string;
  /** When it was created (sealed in its id): it expires `maxAgeMs` later, however active. */
  readonly createdAt: number;
  /**
   * What the client declared it can answer (`sampling`, `elicitation`, `roots`) at `initialize`: the router asks
   * a session's client only for what it declared.
   */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** The GET stream for messages not tied to a request (list_changed), if the client opened one. */
  stream: SseStream | undefined;
  lastSeen: number;
}

/**
 * Where the ends of sessions are recorded for every replica (the store): a session a client ended (`DELETE`) is
 * refused from then on by every replica and after a restart, not only by the process that ended it.
 */
export interface EndedSessionLedger {
  /** Records an end, by the session's digest, until `expiresAt` (when its id expires anyway). */
  end(digest: string, endedAt: number, expiresAt: number): Promise<void>;
  /** Whether the session with this digest was ended. */
  isEnded(digest: string, now: number): Promise<boolean>;
}

/**
 * The digest a session's end is recorded under: its id's seal (an HMAC of the rest under the session secret),
 * unique per session and of no use without the rest of the id.
 */
export function sessionDigest(id: string): string {
  return id.slice(id.lastIndexOf(".") + 1);
}

/** Options for {@link createSessionRegistry}. */
export interface SessionRegistryOptions {
  /**
   * Key that seals session ids. Replicas sharing it accept each other's sessions, so a client can land on any
   * replica and carry on. A random key (the default) limits sessions to this process.
   */
  secret?: Buffer;
  /** Sessions idle longer than this are forgotten (their id stays valid where sealed). */
  idleTimeoutMs: number;
  /** Sessions end this long after they were created, however active (default 24 h). */
  maxAgeMs?: number;
  /**
   * Upper bound on sessions held in memory; the least recently seen one goes first (seen to within
   * {@link SEEN_ORDER_GRANULARITY_MS}).
   */
  maxSessions: number;
  clock?: () => number;
  /** Where ends are recorded for every replica; absent, an end is known to this process only (and not for ever). */
  ledger?: EndedSessionLedger;
  /**
   * How long a restore waits for the ledger before it trusts the seal alone (default
   * {@link LEDGER_CHECK_TIMEOUT_MS}): a slow or unreachable store must not hold up a session's requests.
   */
  ledgerTimeoutMs?: number;
  /**
   * The id of the namespace now registered under a name, `undefined` when there is none. Sealed into each session
   * id, so that a session of a namespace that was deleted is refused by every replica and after a restart, also
   * once a namespace of the same name is created again. Absent, sessions are bound to the namespace's name only.
   */
  namespaceId?: (namespace: string) => string | undefined;
}

/** How long a restore waits for the ledger by default. */
export const LEDGER_CHECK_TIMEOUT_MS = 1_000;

/** `promise`, or a rejection once `ms` passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The sessions of one router process. */
export interface SessionRegistry {
  /**
   * Creates a session for `principal` (default `anonymous`) and its sealed id, keeping what the client declared
   * it can answer (see {@link McpSession.clientCapabilities}).
   */
  create(
    namespace: string,
    protocolVersion: string,
    principal?: string,
    clientCapabilities?: unknown,
  ): McpSession;
  /**
   * The session with this id: known here, or restored from its sealed id (it was created by another replica or
   * before a restart). `undefined` when the id is unknown, forged, expired, ended, for another namespace, or
   * created by another principal than `principal` (default `anonymous`): a session id is no credential of its
   * own. A promise only when a session not held here must first be checked against the ledger.
   */
  get(
    id: string,
    namespace: string,
    principal?: string,
  ): McpSession | undefined | Promise<McpSession | undefined>;
  /** Forgets a session here: its stream closes. Its sealed id is refused here from now on (see {@link end}). */
  delete(id: string): boolean;
  /**
   * A client ends its session (`DELETE`; the session as {@link get} answered it): its end recorded in the ledger,
   * so that every replica refuses its id, and then forgotten here. Rejects, leaving the session as it was, when the
   * ledger cannot record it.
   * @returns whether it was held here.
   */
  end(session: McpSession): Promise<boolean>;
  /** A session ended on another replica (by its digest): forgotten here, its id refused. */
  forget(digest: string): void;
  /** Every session held in memory. */
  all(): IterableIterator<McpSession>;
  /** How many sessions are held in memory. */
  readonly size: number;
  /** Forgets idle sessions; returns how many. */
  sweep(): number;
  close(): void;
}

interface SealedClaims {
  /** namespace */
  n: string;
  /** protocol version */
  v: string;
  /** random part, so two sessions never share an id */
  r: string;
  /** the principal that created it */
  p: string;
  /** when it was created (epoch ms) */
  t: number;
  /** the client capabilities the router may ask for (sampling, elicitation, roots), when declared */
  c?: Record<string, unknown>;
  /** the namespace's id when the session was created (absent in ids sealed before it was, which are accepted) */
  i?: string;
}

/** The client capabilities a session keeps: those the router may ask a client for, each a small object. */
const ASKABLE = ["sampling", "elicitation", "roots"] as const;

function askableCapabilities(declared: unknown): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (typeof declared !== "object" || declared === null) return kept;
  for (const name of ASKABLE) {
    const value = (declared as Record<string, unknown>)[name];
    if (typeof value !== "object" || value === null) continue;
    // Sealed into the session id: keep it small whatever the client sent.
    kept[name] = JSON.stringify(value).length <= 256 ? value : {};
  }
  return kept;
}

const ANONYMOUS = "anonymous";

/**
 * A session seen again within this long of its last move keeps its place in the eviction order: moving it to the
 * back of the map on every request (delete and set) cost ~1.5 µs a call, and an order finer than a second buys
 * nothing when the session evicted is the one idle longest.
 */
export const SEEN_ORDER_GRANULARITY_MS = 1_000;
const DEFAULT_MAX_AGE_MS = 24 * 60 * 60_000;

/** Creates the session registry. */
export function createSessionRegistry(options: SessionRegistryOptions): SessionRegistry {
  const secret = options.secret ?? randomBytes(32);
  const clock = options.clock ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const expired = (session: McpSession, now: number) => now - session.createdAt >= maxAgeMs;
  /** Held sessions by digest ({@link sessionDigest}), least recently seen first (to within a second). */
  const sessions = new Map<string, McpSession>();
  /** When each held session last moved to the back of `sessions` (its place in the eviction order). */
  const placedAt = new WeakMap<McpSession, number>();
  /** Digests of sessions ended lately, refused without asking the ledger (the ledger keeps them all). */
  const ended = new Set<string>();
  const noteEnded = (digest: string) => {
    ended.add(digest);
    if (ended.size > 10_000) ended.delete(ended.values().next().value as string);
  };

  const sign = (payload: string) =>
    createHmac("sha256", secret).update(payload).digest("base64url").slice(0, 32);

  function seal(claims: SealedClaims): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
    return `${payload}.${sign(payload)}`;
  }

  function unseal(id: string): SealedClaims | undefined {
    const dot = id.indexOf(".");
    if (dot <= 0 || id.length > 1024) return undefined;
    const payload = id.slice(0, dot);
    const given = Buffer.from(id.slice(dot + 1));
    const expected = Buffer.from(sign(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SealedClaims;
      // Ids sealed before sessions were bound to a principal and dated carry neither: they are refused.
      return typeof claims.n === "string" &&
        typeof claims.v === "string" &&
        typeof claims.p === "string" &&
        typeof claims.t === "number"
        ? claims
        : undefined;
    } catch {
      return undefined;
    }
  }

  function remember(session: McpSession): McpSession {
    if (sessions.size >= options.maxSessions) {
      // Evicted, not ended: its sealed id still restores it, as after an idle sweep.
      const oldest = sessions.values().next().value;
      if (oldest !== undefined) {
        sessions.delete(sessionDigest(oldest.id));
        oldest.stream?.close();
      }
    }
    sessions.set(sessionDigest(session.id), session);
    placedAt.set(session, clock());
    return session;
  }

  /** A held session, as `get` answers for it: expired ends it; another namespace or principal does not see it. */
  function use(
    session: McpSession,
    digest: string,
    namespace: string,
    principal: string,
  ): McpSession | undefined {
    const now = clock();
    if (expired(session, now)) {
      registry.delete(session.id);
      return undefined;
    }
    if (session.namespace !== namespace || session.principal !== principal) return undefined;
    // Keep the map in least-recently-seen order for eviction, to within a second.
    if (now - (placedAt.get(session) ?? 0) >= SEEN_ORDER_GRANULARITY_MS) {
      sessions.delete(digest);
      sessions.set(digest, session);
      placedAt.set(session, now);
    }
    session.lastSeen = now;
    return session;
  }

  const registry: SessionRegistry = {
    create(namespace, protocolVersion, principal = ANONYMOUS, declared) {
      const createdAt = clock();
      const clientCapabilities = askableCapabilities(declared);
      const claims: SealedClaims = {
        n: namespace,
        v: protocolVersion,
        r: randomUUID(),
        p: principal,
        t: createdAt,
      };
      if (Object.keys(clientCapabilities).length > 0) claims.c = clientCapabilities;
      const namespaceId = options.namespaceId?.(namespace);
      if (namespaceId !== undefined) claims.i = namespaceId;
      const id = seal(claims);
      return remember({
        id,
        namespace,
        protocolVersion,
        principal,
        createdAt,
        clientCapabilities,
        logLevel: undefined,
        stream: undefined,
        lastSeen: clock(),
      });
    },
    get(id, namespace, principal = ANONYMOUS) {
      const digest = sessionDigest(id);
      const held = sessions.get(digest);
      // The whole id must match: a seal paired with another payload is a forgery.
      if (held !== undefined) return held.id === id ? use(held, digest, namespace, principal) : undefined;
      if (ended.has(digest)) return undefined;
      const claims = unseal(id);
      if (!claims) return undefined;
      // Sealed for a namespace since deleted: a namespace created again under its name is another one.
      if (claims.i !== undefined && options.namespaceId && options.namespaceId(claims.n) !== claims.i)
        return undefined;
      const restore = () => {
        const session = remember({
          id,
          namespace: claims.n,
          protocolVersion: claims.v,
          principal: claims.p,
          createdAt: claims.t,
          clientCapabilities: askableCapabilities(claims.c),
          logLevel: undefined,
          stream: undefined,
          lastSeen: clock(),
        });
        return use(session, digest, namespace, principal);
      };
      const ledger = options.ledger;
      if (!ledger || clock() - claims.t >= maxAgeMs) return restore();
      const answer = (wasEnded: boolean) => {
        // Ended meanwhile (announced by the store while the ledger was asked) counts as ended.
        if (wasEnded || ended.has(digest)) {
          noteEnded(digest);
          return undefined;
        }
        // Asked meanwhile by another request of the same client: one session object, not two.
        const meanwhile = sessions.get(digest);
        return meanwhile ? use(meanwhile, digest, namespace, principal) : restore();
      };
      // The store unreachable or slow: the seal still proves the session, and a database outage must not end (or
      // hold up) every session that moves between replicas (calls are served from memory then). Only an end
      // recorded meanwhile is missed.
      return within(ledger.isEnded(digest, clock()), options.ledgerTimeoutMs ?? LEDGER_CHECK_TIMEOUT_MS).then(
        answer,
        () => answer(false),
      );
    },
    delete(id) {
      const digest = sessionDigest(id);
      const held = sessions.get(digest)?.id === id;
      // A held session is forgotten as an announced end is; another id with its seal only marks the seal ended.
      if (held) registry.forget(digest);
      else noteEnded(digest);
      return held;
    },
    async end(session) {
      // Recorded first: when the ledger cannot take it, the session stays as it was and the client may try again.
      await options.ledger?.end(sessionDigest(session.id), clock(), session.createdAt + maxAgeMs);
      return registry.delete(session.id);
    },
    forget(digest) {
      noteEnded(digest);
      const session = sessions.get(digest);
      if (!session) return;
      sessions.delete(digest);
      session.stream?.close();
    },
    all: () => sessions.values(),
    get size() {
      return sessions.size;
    },
    sweep() {
      const now = clock();
      const cutoff = now - options.idleTimeoutMs;
      let n = 0;
      for (const session of [...sessions.values()]) {
        if (expired(session, now)) {
          // Past its lifetime: ended for good, its stream closed, its sealed id refused from now on.
          registry.delete(session.id);
          n++;
        } else if (session.lastSeen < cutoff && !session.stream) {
          sessions.delete(sessionDigest(session.id));
          n++;
        }
      }
      return n;
    },
    close() {
      for (const session of sessions.values()) session.stream?.close();
      sessions.clear();
    },
  };
  return registry;
}
