import { describe, expect, it } from "vitest";
import { followEndedSessions } from "../src/mcp/ended-sessions.js";
import {
  createSessionRegistry,
  type EndedSessionLedger,
  sessionDigest,
} from "../src/mcp/session-registry.js";

/** A ledger in memory, as the store keeps it: digest → when the session expires. */
function memoryLedger(): EndedSessionLedger & { ends: Map<string, number>; asked: number } {
  const ends = new Map<string, number>();
  const ledger = {
    ends,
    asked: 0,
    async end(digest: string, _endedAt: number, expiresAt: number) {
      ends.set(digest, expiresAt);
    },
    async isEnded(digest: string, now: number) {
      ledger.asked++;
      return (ends.get(digest) ?? 0) > now;
    },
  };
  return ledger;
}

describe("a session's end", () => {
  const secret = Buffer.alloc(32, 9);
  const options = { secret, idleTimeoutMs: 60_000, maxSessions: 100 };

  it("is refused by a replica that held the session once told, and by a new one from the ledger", async () => {
    const ledger = memoryLedger();
    const here = createSessionRegistry({ ...options, ledger });
    const there = createSessionRegistry({ ...options, ledger });
    const session = here.create("", "2025-06-18", "alice");
    const held = await there.get(session.id, "", "alice");
    expect(held?.id).toBe(session.id);

    expect(await here.end(session)).toBe(true);
    expect(ledger.ends.has(sessionDigest(session.id))).toBe(true);
    expect(here.get(session.id, "", "alice")).toBeUndefined();
    // The store tells every replica; the one holding the session forgets it.
    there.forget(sessionDigest(session.id));
    expect(there.get(session.id, "", "alice")).toBeUndefined();
    // A replica started later asks the ledger.
    const later = createSessionRegistry({ ...options, ledger });
    expect(await later.get(session.id, "", "alice")).toBeUndefined();
  });

  it("stays refused after ten thousand other ends, where only the ledger still remembers it", async () => {
    const ledger = memoryLedger();
    const sessions = createSessionRegistry({ ...options, ledger });
    const first = sessions.create("", "2025-06-18");
    await sessions.end(first);
    for (let i = 0; i < 10_001; i++) await sessions.end(sessions.create("", "2025-06-18"));
    expect(await sessions.get(first.id, "")).toBeUndefined();
  });

  it("restores a session another replica made as one object, however many requests ask at once", async () => {
    const ledger = memoryLedger();
    const maker = createSessionRegistry(options);
    const sessions = createSessionRegistry({ ...options, ledger });
    const session = maker.create("", "2025-06-18", "alice");
    const [one, two] = await Promise.all([
      sessions.get(session.id, "", "alice"),
      sessions.get(session.id, "", "alice"),
    ]);
    expect(one).toBeDefined();
    expect(two).toBe(one);
    expect([...sessions.all()]).toHaveLength(1);
    // Held now: answered at once, without the ledger.
    const asked = ledger.asked;
    expect(sessions.get(session.id, "", "alice")).toBe(one);
    expect(ledger.asked).toBe(asked);
  });

  it("restores a session from its seal alone while the ledger is unreachable, unless its end was announced meanwhile", async () => {
    const maker = createSessionRegistry(options);
    const down: EndedSessionLedger = {
      end: async () => undefined,
      isEnded: () => Promise.reject(new Error("the store is down")),
    };
    const sessions = createSessionRegistry({ ...options, ledger: down });
    const kept = maker.create("", "2025-06-18");
    expect((await sessions.get(kept.id, ""))?.id).toBe(kept.id);

    // The store announces an end while this replica is asking the ledger about that session.
    let answer: (ended: boolean) => void = () => undefined;
    const slow = createSessionRegistry({
      ...options,
      ledger: { end: async () => undefined, isEnded: () => new Promise((resolve) => (answer = resolve)) },
    });
    const ending = maker.create("", "2025-06-18");
    const pending = slow.get(ending.id, "");
    slow.forget(sessionDigest(ending.id));
    answer(false);
    expect(await pending).toBeUndefined();
    expect(slow.get(ending.id, "")).toBeUndefined();
  });

  it("does not hold a session's requests up on a ledger that does not answer", async () => {
    const maker = createSessionRegistry(options);
    const silent = createSessionRegistry({
      ...options,
      ledger: { end: async () => undefined, isEnded: () => new Promise<boolean>(() => undefined) },
      ledgerTimeoutMs: 50,
    });
    const session = maker.create("", "2025-06-18");
    const started = Date.now();
    expect((await silent.get(session.id, ""))?.id).toBe(session.id);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses a held session's seal paired with another payload", async () => {
    const sessions = createSessionRegistry(options);
    const alice = sessions.create("", "2025-06-18", "alice");
    const bob = sessions.create("", "2025-06-18", "bob");
    const [bobPayload] = bob.id.split(".");
    const forged = `${bobPayload}.${sessionDigest(alice.id)}`;
    expect(sessions.get(forged, "", "bob")).toBeUndefined();
    expect(sessions.get(forged, "", "alice")).toBeUndefined();
    expect(sessions.get(alice.id, "", "alice")).toBe(alice);
  });

  it("follows the ends the store announces, and catches up after notifications were lost", async () => {
    const sessions = createSessionRegistry(options);
    const a = sessions.create("", "2025-06-18");
    const b = sessions.create("", "2025-06-18");
    let announce: (digest: string) => void = () => undefined;
    let resync: () => void = () => undefined;
    let askedSince: number | undefined;
    let now = 100_000;
    const stop = await followEndedSessions(
      {
        async subscribeEndedMcpSessions(onEnded, onResync) {
          announce = onEnded;
          resync = onResync;
          return async () => undefined;
        },
        async mcpSessionsEndedSince(since) {
          askedSince = since;
          return [sessionDigest(b.id)];
        },
      },
      sessions,
      { clock: () => now },
    );
    announce(sessionDigest(a.id));
    expect(sessions.get(a.id, "")).toBeUndefined();
    expect(sessions.get(b.id, "")).toBe(b);
    now += 5_000;
    resync();
    await new Promise((r) => setImmediate(r));
    // From when it started following, less a minute for the replicas' clocks.
    expect(askedSince).toBe(100_000 - 60_000);
    expect(sessions.get(b.id, "")).toBeUndefined();
    await stop();
  });

  it("of a deleted namespace is refused by every replica, also once a namespace of its name exists again", async () => {
    const ids = new Map([["team", "first-team"]]);
    const namespaceId = (name: string) => ids.get(name);
    const here = createSessionRegistry({ ...options, namespaceId });
    const session = here.create("team", "2025-06-18", "alice");
    const kept = here.create("", "2025-06-18", "alice");

    ids.delete("team");
    const elsewhere = createSessionRegistry({ ...options, namespaceId });
    expect(await elsewhere.get(session.id, "team", "alice")).toBeUndefined();
    ids.set("team", "second-team");
    expect(await elsewhere.get(session.id, "team", "alice")).toBeUndefined();
    expect(
      await createSessionRegistry({ ...options, namespaceId }).get(session.id, "team", "alice"),
    ).toBeUndefined();
    // A session of the new namespace, and of a namespace left alone, carry on.
    const renewed = here.create("team", "2025-06-18", "alice");
    expect((await elsewhere.get(renewed.id, "team", "alice"))?.id).toBe(renewed.id);
    expect((await elsewhere.get(kept.id, "", "alice"))?.id).toBe(kept.id);
  });
});
