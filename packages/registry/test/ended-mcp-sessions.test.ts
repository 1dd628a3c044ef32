import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/index.js";

describe("ended MCP sessions in the store", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterAll(() => store.close());

  it("keeps an end until the session would have expired, and drops expired ends at the next one", async () => {
    await store.endMcpSession("seal-1", 1_000, 5_000);
    expect(await store.isMcpSessionEnded("seal-1", 4_999)).toBe(true);
    expect(await store.isMcpSessionEnded("seal-1", 5_000)).toBe(false);
    expect(await store.isMcpSessionEnded("seal-2", 1_000)).toBe(false);
    // Ended twice (a client retrying its DELETE): one end, as first recorded.
    await store.endMcpSession("seal-1", 1_500, 9_000);
    expect(await store.isMcpSessionEnded("seal-1", 6_000)).toBe(false);
    expect(await store.mcpSessionsEndedSince(0)).toEqual(["seal-1"]);
    // The next end, after seal-1's expiry, takes it away.
    await store.endMcpSession("seal-3", 6_000, 20_000);
    expect(await store.mcpSessionsEndedSince(0)).toEqual(["seal-3"]);
    expect(await store.mcpSessionsEndedSince(6_001)).toEqual([]);
  });

  it("announces each end to its subscribers, by digest", async () => {
    const heard: string[] = [];
    const stop = await store.subscribeEndedMcpSessions(
      (digest) => heard.push(digest),
      () => undefined,
    );
    await store.endMcpSession("seal-4", 7_000, 20_000);
    await store.endMcpSession("seal-5", 7_000, 20_000);
    for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(heard).toEqual(["seal-4", "seal-5"]);
  });
});
