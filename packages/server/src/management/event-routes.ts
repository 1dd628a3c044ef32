import type { EventHub } from "@trestle/bridge";
import type { ToolCallEvent } from "@trestle/core";
import type { Registry, RegistryEvent } from "@trestle/registry";
import type { JsonApi } from "../http/json-api.js";
import { openSseStream, type SseStreamOptions } from "../http/sse.js";

function positiveInt(text: string | null, fallback: number): number {
  const n = Number(text);
  return text !== null && Number.isInteger(n) && n > 0 ? n : fallback;
}

/** What the event routes need. */
export interface EventRoutesDependencies {
  events: EventHub;
  registry: Registry;
  /** Bytes a subscriber that does not read may leave buffered before it is dropped (see `openSseStream`). */
  sseMaxBufferedBytes?: number;
  /** Told when a subscriber is dropped for reading too slowly. */
  onSubscriberDropped?(stream: string, bufferedBytes: number): void;
}

/**
 * Tool-call events as Wanaku streams them (`/api/v2/tool-calls/notifications`: SSE with event names
 * `started|completed|failed` and the event id), their history, and registry events (register, deregister,
 * health changes) as SSE. Events are redacted at their source, in the bridge.
 */
export function registerEventRoutes(api: JsonApi, deps: EventRoutesDependencies): void {
  const sseOptions = (stream: string): SseStreamOptions => ({
    ...(deps.sseMaxBufferedBytes !== undefined ? { maxBufferedBytes: deps.sseMaxBufferedBytes } : {}),
    onDropped: (bytes) => deps.onSubscriberDropped?.(stream, bytes),
  });

  api.route("GET", "/api/v2/tool-calls/notifications", async ({ req, res, query }) => {
    const controller = new AbortController();
    const sse = openSseStream(res, sseOptions("tool-calls"));
    req.on("close", () => controller.abort());
    const toolName = query.get("toolName");
    const stream = deps.events.stream({
      signal: controller.signal,
      ...(toolName ? { filter: (e: ToolCallEvent) => e.toolName === toolName } : {}),
    });
    for await (const event of stream) {
      if (!sse.send(JSON.stringify(event), { event: event.type, id: event.eventId })) break;
    }
    sse.close();
    return undefined;
  });

  api.route("GET", "/api/v2/tool-calls/history", ({ query }) => {
    const type = query.get("type");
    return {
      data: deps.events.history({
        limit: positiveInt(query.get("limit"), 100),
        ...(query.get("toolName") ? { toolName: query.get("toolName") as string } : {}),
        ...(type === "started" || type === "completed" || type === "failed" ? { type } : {}),
        ...(query.get("namespace") !== null ? { namespace: query.get("namespace") as string } : {}),
      }),
    };
  });

  api.route("GET", "/api/v1/management/events", async ({ req, res }) => {
    const sse = openSseStream(res, sseOptions("registry"));
    const unsubscribe = deps.registry.services.onEvent((event: RegistryEvent) => {
      sse.send(JSON.stringify({ type: event.type, service: event.service }), { event: event.type });
    });
    req.on("close", () => sse.close());
    await sse.done;
    unsubscribe();
    return undefined;
  });
}
