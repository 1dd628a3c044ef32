import type { EventHub } from "@trestle/bridge";
import type { ToolCallEvent } from "@trestle/core/events";
import type { Registry, RegistryEvent } from "@trestle/registry";
import type { JsonApi } from "../http/json-api.js";
import { openSseStream, type SseStreamOptions } from "../http/sse.js";
import { managementApi as op } from "./operations.js";
import { subscribeResumable, toolCallSseId } from "./tool-call-event-resume.js";

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function positiveInt(text: string | undefined, fallback: number): number {
  const n = Number(text);
  return text !== undefined && Number.isInteger(n) && n > 0 ? n : fallback;
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
 * `started|completed|failed`; the SSE id is `<eventId>:<type>`, and a client that reconnects with `Last-Event-ID`
 * gets the events it missed from the history first), their history, and registry events (register, deregister,
 * health changes) as SSE. Events are redacted at their source, in the bridge.
 */
export function registerEventRoutes(api: JsonApi, deps: EventRoutesDependencies): void {
  const sseOptions = (stream: string): SseStreamOptions => ({
    ...(deps.sseMaxBufferedBytes !== undefined ? { maxBufferedBytes: deps.sseMaxBufferedBytes } : {}),
    onDropped: (bytes) => deps.onSubscriberDropped?.(stream, bytes),
  });

  api.route(op.toolCallNotifications, async ({ req, res, query }) => {
    const sse = openSseStream(res, sseOptions("tool-calls"));
    req.on("close", () => sse.close());
    const toolName = query.toolName;
    // Written as each event is emitted, with the JSON the hub measured it by; a reader that falls behind is
    // dropped by the stream's own bound. A reconnecting client resumes after the last event it saw (the header;
    // the query for clients without one).
    const subscription = subscribeResumable(
      deps.events,
      {
        lastEventId: headerValue(req.headers["last-event-id"]) ?? query.lastEventId,
        filter: toolName ? (e: ToolCallEvent) => e.toolName === toolName : undefined,
      },
      (event, json) => {
        sse.send(json, { event: event.type, id: toolCallSseId(event) });
      },
    );
    await sse.done;
    subscription.unsubscribe();
    return undefined;
  });

  api.route(op.toolCallHistory, ({ query }) => {
    const { type } = query;
    return {
      data: deps.events.history({
        limit: positiveInt(query.limit, 100),
        ...(query.toolName ? { toolName: query.toolName } : {}),
        ...(type === "started" || type === "completed" || type === "failed" ? { type } : {}),
        ...(query.namespace !== undefined ? { namespace: query.namespace } : {}),
      }),
    };
  });

  api.route(op.registryEvents, async ({ req, res }) => {
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
