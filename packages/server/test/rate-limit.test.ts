import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "../src/http/rate-limit.js";
import { createTokenAuthenticator } from "../src/http/security.js";

const from = (address: string, authorization?: string) =>
  ({
    headers: authorization ? { authorization } : {},
    socket: { remoteAddress: address },
  }) as unknown as IncomingMessage;

const tokens = [
  {
    name: "limited",
    token: "limited-token-0123456789",
    scopes: ["mcp" as const],
    rateLimit: { requestsPerSecond: 2, burst: 3 },
  },
  { name: "default", token: "default-token-0123456789", scopes: ["mcp" as const] },
];

describe("rate limits", () => {
  let now = 0;
  const clock = () => now;
  const auth = createTokenAuthenticator(tokens);
  const principal = (token: string) => {
    const outcome = auth.check(from("10.0.0.1", `Bearer ${token}`), "mcp");
    if (!outcome.ok) throw new Error(outcome.message);
    return outcome.principal;
  };

  it("lets a token burst, then refuses with the seconds until its bucket has a request again", () => {
    now = 0;
    const limiter = createRateLimiter({ clock });
    const limited = principal("limited-token-0123456789");
    const req = from("10.0.0.1");
    for (let i = 0; i < 3; i++) expect(limiter.admit(req, limited)).toEqual({ ok: true });
    const refused = limiter.admit(req, limited);
    expect(refused).toEqual({
      ok: false,
      retryAfterSeconds: 1,
      message: "Too many requests: the token 'limited' may make 2 per second (bursts of 3); retry after 1 s",
    });
    now += 500; // one request back at 2 per second
    expect(limiter.admit(req, limited).ok).toBe(true);
    expect(limiter.admit(req, limited).ok).toBe(false);
    // Without a limit of its own and without a default, a token is never limited.
    const other = principal("default-token-0123456789");
    for (let i = 0; i < 100; i++) expect(limiter.admit(req, other).ok).toBe(true);
  });

  it("keeps one bucket per token, the same object for every request with it", () => {
    expect(principal("limited-token-0123456789")).toBe(principal("limited-token-0123456789"));
  });

  it("applies the default to tokens without their own limit, and per client address to requests without a token", () => {
    now = 0;
    const limiter = createRateLimiter({ clock, defaultLimit: { requestsPerSecond: 0.5 } });
    const other = principal("default-token-0123456789");
    expect(limiter.admit(from("10.0.0.1"), other).ok).toBe(true);
    expect(limiter.admit(from("10.0.0.1"), other)).toMatchObject({ ok: false, retryAfterSeconds: 2 });
    expect(limiter.admit(from("10.0.0.2"), undefined).ok).toBe(true);
    expect(limiter.admit(from("10.0.0.2"), undefined)).toMatchObject({
      ok: false,
      message: expect.stringContaining("this client may make 0.5 per second"),
    });
    // Another address has its own bucket.
    expect(limiter.admit(from("10.0.0.3"), undefined).ok).toBe(true);
  });

  it("keeps at most maxAddresses client buckets, dropping full ones first", () => {
    now = 0;
    const limiter = createRateLimiter({ clock, defaultLimit: { requestsPerSecond: 1 }, maxAddresses: 2 });
    expect(limiter.admit(from("a"), undefined).ok).toBe(true);
    expect(limiter.admit(from("b"), undefined).ok).toBe(true);
    now += 2_000; // a and b are full again: dropping them forgets nothing
    expect(limiter.admit(from("c"), undefined).ok).toBe(true);
    expect(limiter.admit(from("c"), undefined).ok).toBe(false);
    expect(limiter.admit(from("a"), undefined).ok).toBe(true);
  });

  it("counts every message of a batch: admits the rest all at once or refuses, taking nothing", () => {
    now = 0;
    const limiter = createRateLimiter({ clock, defaultLimit: { requestsPerSecond: 10, burst: 20 } });
    const req = from("10.0.0.9");
    expect(limiter.admit(req, undefined).ok).toBe(true);
    // A batch of 15: one taken by admit, 14 more here; 5 left in the bucket.
    expect(limiter.admitMore(req, 14)).toEqual({ ok: true });
    const second = from("10.0.0.9");
    expect(limiter.admit(second, undefined).ok).toBe(true);
    const refused = limiter.admitMore(second, 9);
    expect(refused).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    expect(refused.ok ? "" : refused.message).toContain("10 messages, each counted");
    // The refusal took nothing: the 4 requests left are still there.
    for (let i = 0; i < 4; i++) expect(limiter.admit(from("10.0.0.9"), undefined).ok).toBe(true);
    expect(limiter.admit(from("10.0.0.9"), undefined).ok).toBe(false);
    // A batch the bucket can never hold is told to shrink.
    now += 10_000;
    const third = from("10.0.0.9");
    expect(limiter.admit(third, undefined).ok).toBe(true);
    const never = limiter.admitMore(third, 50);
    expect(never.ok ? "" : never.message).toContain("send smaller batches");
    // A request no limit applied to is admitted whatever its size.
    const free = createRateLimiter({ clock });
    const unlimited = from("10.0.0.10");
    expect(free.admit(unlimited, undefined).ok).toBe(true);
    expect(free.admitMore(unlimited, 10_000).ok).toBe(true);
  });
});
