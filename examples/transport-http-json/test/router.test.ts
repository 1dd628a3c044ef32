import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createRouter, type Router, resolveConfig } from "@trestle/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createHttpJsonCapabilityServer,
  createHttpJsonTransport,
  type HttpJsonCapabilityServer,
} from "../src/index.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A weather service on the HTTP+JSON wire: nothing but this example's transport can talk to it. */
async function startWeatherService() {
  const calls: string[] = [];
  const server: HttpJsonCapabilityServer = createHttpJsonCapabilityServer({
    callTool(call, context) {
      calls.push(`${call.tool.uri} ${JSON.stringify(call.arguments)} request-id=${context.requestId}`);
      return { content: [{ type: "text", text: `${String(call.arguments.city)}: sunny, 21 °C` }] };
    },
    probeHealth: () => ({ state: "healthy" }),
  });
  const { host, port } = await server.listen();
  cleanups.push(() => server.close());
  return { host, port, calls, stop: () => server.close() };
}

let router: Router;
let client: Client;

// One router for the file (opening its store is the slow part): the HTTP+JSON transport is added under the
// protocol name "http-json", and the configuration routes the service "configured-weather" to it.
beforeAll(async () => {
  const config = resolveConfig({
    file: { services: { "configured-weather": { protocol: "http-json" } } },
    flags: { port: "0", memoryStore: true, logLevel: "silent" },
  });
  router = await createRouter(config, { transports: { "http-json": createHttpJsonTransport() } });
  client = new Client({ name: "transport-http-json-example", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  await router?.close();
});

async function api(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${router.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

/** Registers a service as a capability does, and a tool routed to it (a tool's `type` is the service name). */
async function registerWithTool(
  service: { host: string; port: number },
  serviceName: string,
  toolName: string,
  protocol?: string,
) {
  await api("/api/v1/management/discovery", {
    id: null,
    serviceName,
    host: service.host,
    port: service.port,
    serviceType: "tool-invoker",
    ...(protocol ? { protocol } : {}),
  });
  await api("/api/v1/tools", {
    name: toolName,
    description: "Today's weather in a city",
    uri: "weather://forecast",
    type: serviceName,
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  });
}

describe("the router routes MCP tool calls over the HTTP+JSON transport", () => {
  it("to a service that registered with protocol 'http-json'", async () => {
    const weather = await startWeatherService();
    await registerWithTool(weather, "weather", "forecast", "http-json");

    const result = await client.callTool({ name: "forecast", arguments: { city: "Oslo" } });

    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "Oslo: sunny, 21 °C" }]);
    expect(weather.calls).toHaveLength(1);
    expect(weather.calls[0]).toMatch(/^weather:\/\/forecast \{"city":"Oslo"\} request-id=\S+$/);
  });

  it("to a service whose protocol the router's configuration names (services.<name>.protocol)", async () => {
    const weather = await startWeatherService();
    // A Wanaku-style registration names no protocol: without the configuration it would go over gRPC.
    await registerWithTool(weather, "configured-weather", "configured_forecast");

    const result = await client.callTool({ name: "configured_forecast", arguments: { city: "Lima" } });

    expect(result.content).toEqual([{ type: "text", text: "Lima: sunny, 21 °C" }]);
    expect(weather.calls).toHaveLength(1);
  });

  it("and a service that cannot be reached is a tool error naming it, not a protocol error", async () => {
    const weather = await startWeatherService();
    await registerWithTool(weather, "gone-weather", "gone_forecast", "http-json");
    await weather.stop();

    const result = await client.callTool({ name: "gone_forecast", arguments: { city: "Oslo" } });

    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(`${weather.host}:${weather.port}`);
  });
});
