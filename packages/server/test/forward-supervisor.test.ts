import type { Catalog } from "@trestle/registry";
import {
  mcpToolUri,
  type UpstreamCatalogWatch,
  type WatchUpstreamCatalogOptions,
} from "@trestle/transport-mcp";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createForwardDirectory } from "../src/forwards/forward-directory.js";
import { createForwardSupervisor } from "../src/forwards/forward-supervisor.js";

/** A watch that records the options it was opened with and lists an empty catalog. */
function recordingWatch(seen: WatchUpstreamCatalogOptions[]) {
  return async (_upstream: unknown, options: WatchUpstreamCatalogOptions): Promise<UpstreamCatalogWatch> => {
    seen.push(options);
    const catalog = {
      serverInfo: { name: "fake", version: "1" },
      capabilities: {},
      tools: [],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    };
    return {
      catalog,
      refresh: async () => catalog,
      getPrompt: async () => ({ messages: [] }),
      close: async () => undefined,
    };
  };
}

describe("the forward supervisor", () => {
  it("opens a forward's watch with its own start and handshake timeouts, else the router's", async () => {
    const seen: WatchUpstreamCatalogOptions[] = [];
    const directory = createForwardDirectory({ startTimeoutMs: 120_000, handshakeTimeoutMs: 30_000 });
    const supervisor = createForwardSupervisor({
      catalog: {} as Catalog,
      directory,
      logger: pino({ level: "silent" }),
      catalogTimeoutMs: 5_000,
      upstreams: { watch: recordingWatch(seen) as never, toolUri: mcpToolUri },
    });
    const upstream = { kind: "stdio" as const, command: "npx", args: ["-y", "some-server"] };
    await supervisor.connect(supervisor.entryFor({ name: "plain", upstream }, "connecting"));
    await supervisor.connect(
      supervisor.entryFor(
        { name: "slow", upstream, startTimeoutMs: 300_000, handshakeTimeoutMs: 2_000 },
        "connecting",
      ),
    );
    expect(
      seen.map(({ startTimeoutMs, handshakeTimeoutMs, timeoutMs }) => ({
        startTimeoutMs,
        handshakeTimeoutMs,
        timeoutMs,
      })),
    ).toEqual([
      { startTimeoutMs: 120_000, handshakeTimeoutMs: 30_000, timeoutMs: 5_000 },
      { startTimeoutMs: 300_000, handshakeTimeoutMs: 2_000, timeoutMs: 5_000 },
    ]);
    await supervisor.close();
  });
});
