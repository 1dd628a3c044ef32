import type { IncomingMessage } from "node:http";
import type { Principal } from "./security.js";

/** How many requests a client may make: a token bucket of `burst` that refills at `requestsPerSecond`. */
export interface RateLimit {
  requestsPerSecond: number;
  /** Requests that may come at once after a quiet spell; `requestsPerSecond` (at least 1) when absent. */
  burst?: number;
}

/** The outcome of {@link RateLimiter.admit}. */
export type RateOutcome = { ok: true } | { ok: false; retryAfterSeconds: number; message: string };

/** Counts requests per token, and per client address for requests made without one. */
export interface RateLimiter {
  /**
   * Takes one request from the bucket of `principal` (its own `rateLimit`, else the default), or of the client's
   * address when the request carries no token the router knows. Refuses with the seconds until a request would
   * be admitted again.
   */
  admit(req: IncomingMessage, principal: Principal | undefined): RateOutcome;
  /**
   * Takes `count` more requests, all at once or none, from the bucket that {@link admit} took `req`'s request
   * from: a JSON-RPC batch of N messages costs N requests, one taken by `admit` and N - 1 here. Admits when
   * `req` was never admitted (no limit applies to it).
   */
  admitMore(req: IncomingMessage, count: number): RateOutcome;
}

/** Options for {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** For tokens without their own limit, and per client address for requests without a token. */
  defaultLimit?: RateLimit | undefined;
  /** Client addresses whose buckets are kept at most (the fullest are dropped first); default 10 000. */
  maxAddresses?: number;
  /** Milliseconds, monotonic; `performance.now` by default. */
  clock?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

function capacityOf(limit: RateLimit): number {
  return limit.burst ?? Math.max(1, Math.ceil(limit.requestsPerSecond));
}

/**
 * Creates the per-token {@link RateLimiter}. A bucket starts full; each request takes one token; tokens come back
 * at `requestsPerSecond` up to `burst`. Buckets of tokens live as long as the router; buckets of client addresses
 * are bounded, and a dropped one would have been full anyway when the bound forces out the fullest.
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const clock = options.clock ?? (() => performance.now());
  const maxAddresses = options.maxAddresses ?? 10_000;
  const byPrincipal = new WeakMap<Principal, Bucket>();
  const byAddress = new Map<string, Bucket>();

  /** The bucket and limit each admitted request was counted against, for {@link RateLimiter.admitMore}. */
  const admittedFrom = new WeakMap<IncomingMessage, { bucket: Bucket; limit: RateLimit; who: string }>();

  function take(bucket: Bucket, limit: RateLimit, now: number, count = 1): number | undefined {
    const capacity = capacityOf(limit);
    bucket.tokens = Math.min(
      capacity,
      bucket.tokens + ((now - bucket.updatedAt) / 1000) * limit.requestsPerSecond,
    );
    bucket.updatedAt = now;
    if (bucket.tokens >= count) {
      bucket.tokens -= count;
      return undefined;
    }
    return Math.max(1, Math.ceil((count - bucket.tokens) / limit.requestsPerSecond));
  }

  function refusal(who: string, limit: RateLimit, retryAfterSeconds: number, count: number): RateOutcome {
    const what = count > 1 ? `; this request holds ${count} messages, each counted` : "";
    return {
      ok: false,
      retryAfterSeconds,
      message: `Too many requests: ${who} may make ${limit.requestsPerSecond} per second (bursts of ${capacityOf(limit)})${what}; retry after ${retryAfterSeconds} s`,
    };
  }

  function addressBucket(address: string, limit: RateLimit, now: number): Bucket {
    let bucket = byAddress.get(address);
    if (bucket) {
      // Re-insert, so the Map's order is the order of last use.
      byAddress.delete(address);
      byAddress.set(address, bucket);
      return bucket;
    }
    if (byAddress.size >= maxAddresses) {
      const capacity = capacityOf(limit);
      for (const [key, old] of byAddress) {
        const refilled = old.tokens + ((now - old.updatedAt) / 1000) * limit.requestsPerSecond;
        if (refilled >= capacity) byAddress.delete(key);
      }
      // Every bucket still in use: forget the least recently used one.
      if (byAddress.size >= maxAddresses) {
        const oldest = byAddress.keys().next().value;
        if (oldest !== undefined) byAddress.delete(oldest);
      }
    }
    bucket = { tokens: capacityOf(limit), updatedAt: now };
    byAddress.set(address, bucket);
    return bucket;
  }

  return {
    admit(req, principal) {
      const limit = principal ? (principal.rateLimit ?? options.defaultLimit) : options.defaultLimit;
      if (!limit) return { ok: true };
      const now = clock();
      let bucket: Bucket;
      if (principal) {
        bucket = byPrincipal.get(principal) ?? { tokens: capacityOf(limit), updatedAt: now };
        byPrincipal.set(principal, bucket);
      } else {
        bucket = addressBucket(req.socket.remoteAddress ?? "unknown", limit, now);
      }
      const who = principal ? `the token '${principal.name}'` : "this client";
      const retryAfterSeconds = take(bucket, limit, now);
      if (retryAfterSeconds !== undefined) return refusal(who, limit, retryAfterSeconds, 1);
      admittedFrom.set(req, { bucket, limit, who });
      return { ok: true };
    },
    admitMore(req, count) {
      const from = admittedFrom.get(req);
      if (!from || count <= 0) return { ok: true };
      const capacity = capacityOf(from.limit);
      // A batch larger than the bucket can ever hold would never be admitted: say so, not only "retry after".
      if (count + 1 > capacity) {
        return {
          ok: false,
          retryAfterSeconds: Math.max(1, Math.ceil(capacity / from.limit.requestsPerSecond)),
          message: `Too many requests: this request holds ${count + 1} messages, each counted, and ${from.who} may make at most ${capacity} at once; send smaller batches`,
        };
      }
      const retryAfterSeconds = take(from.bucket, from.limit, clock(), count);
      if (retryAfterSeconds === undefined) return { ok: true };
      return refusal(from.who, from.limit, retryAfterSeconds, count + 1);
    },
  };
}
