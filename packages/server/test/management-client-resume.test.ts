import type { ToolCallEvent } from "@trestle/core/events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManagementClient } from "../src/client/management-client.js";
import { resolveConfig } from "../src/config.js";
import { createRouter, type Router } from "../src/router.js";

describe("the tool-call event stream of a real router, resumed with Last-Event-ID", () => {
  let router: Router;

  beforeAll(async () => {
    router = await createRouter(
      resolveConfig({
        env: {},
        flags: { host: "127.0.0.1", port: "0", memoryStore: true, logLevel: "silent" },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await router?.close();
  });

  let serial = 0;
  function emitCall(): void {
    const eventId = `call-${++serial}`;
    const base = {
      eventId,
      toolName: "echo",
      toolType: "fixture",
      kind: "tool" as const,
      timestamp: Date.now(),
    };
    router.events.emit({ ...base, type: "started", arguments: {}, headers: {} });
    router.events.emit({ ...base, type: "completed", isError: false, content: ["ok"], duration: 1 });
  }

  it("loses and repeats no event when the connection drops mid-way and events arrive meanwhile", async () => {
    // The client's connections: the first is cut after 3 events (as a network failure would), the second is whole.
    let connections = 0;
    const lastEventIds: (string | null)[] = [];
    const cutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      lastEventIds.push(new Headers(init?.headers).get("last-event-id"));
      if (++connections > 1 || !response.body) return response;
      const reader = response.body.getReader();
      let frames = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          frames += new TextDecoder().decode(value).split("\n\n").length - 1;
          if (frames >= 3) {
            await reader.cancel();
            // Calls made while the client is away: it must get them from the history when it comes back.
            emitCall();
            emitCall();
            controller.error(new TypeError("terminated"));
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = createManagementClient({ baseUrl: router.url, fetch: cutting });
    const controller = new AbortController();
    const received: ToolCallEvent[] = [];
    const reading = (async () => {
      for await (const { event } of client.events.toolCalls({
        signal: controller.signal,
        reconnect: { delayMs: 20 },
      })) {
        received.push(event);
        if (received.length === 12) controller.abort();
      }
    })();
    // Wait until the stream is subscribed, then make calls; more follow the reconnect.
    await new Promise((r) => setTimeout(r, 300));
    emitCall();
    emitCall();
    await new Promise((r) => setTimeout(r, 500));
    emitCall();
    emitCall();
    await reading;
    expect(connections).toBe(2);
    // The second connection resumed after the last event the first one delivered (the cut falls between chunks).
    expect(lastEventIds[0]).toBeNull();
    expect(lastEventIds[1]).toMatch(/^call-[12]:(started|completed)$/);
    const expected = Array.from({ length: 6 }, (_, i) => [
      `call-${i + 1}:started`,
      `call-${i + 1}:completed`,
    ]).flat();
    expect(received.map((e) => `${e.eventId}:${e.type}`)).toEqual(expected);
  });
});
