import type { EventHub } from "@trestle/bridge";
import type { ToolCallEvent } from "@trestle/core";
import type { Registry, RegistryEvent } from "@trestle/registry";
import type { JsonApi } from "../http/json-api.js";
import { openSseStream } from "../http/sse.js";

function positiveInt(text: string | null, fallback: number): number {
  const n = Number(text);
  return text !== null && Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * Tool-call events as Wanaku streams them (`/api/v2/tool-calls/notifications`: SSE with event names
 * `started|completed|failed` and the event id), their history, and registry events (register, deregister,
 * health changes) as SSE. Events are redacted at their source, in the bridge.
 */
export function registerEventRoutes(api: JsonApi, deps: { events: EventHub; registry: Registry }): void {
  api.route("GET", "/api/v2/tool-calls/notifications", async ({ req, res, query }) => {
    const controller = new AbortController();
    const sse = openSseStream(res);
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
    const sse = openSseStream(res);
    const unsubscribe = deps.registry.services.onEvent((event: RegistryEvent) => {
      sse.send(JSON.stringify({ type: event.type, service: event.service }), { event: event.type });
    });
    req.on("close", () => sse.close());
    await sse.done;
    unsubscribe();
    return undefined;
  });
}
