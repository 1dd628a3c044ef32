import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  echoTool,
  eventually,
  type RouterProcess,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  startToolInvoker,
  stopAll,
  trestleCli,
} from "./support/processes.js";

async function mcpClient(url: string): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe("an MCP client through the router to capability services", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter();
    await Promise.all([
      startToolInvoker(router.url, "fixture-grpc", "grpc"),
      startToolInvoker(router.url, "fixture-connect", "connect"),
      startFixtureCapability(router.url, ["--engine", "fixture"]),
    ]);
    await api(router.url, "POST", "/api/v1/tools", echoTool("echo_grpc", "fixture-grpc"));
    await api(router.url, "POST", "/api/v1/tools", echoTool("echo_connect", "fixture-connect"));
    await serviceHealthy(router.url, "fixture-grpc");
    await serviceHealthy(router.url, "fixture-connect");
  }, 120_000);

  afterAll(stopAll);

  it("calls a tool over Streamable HTTP → router → gRPC → capability", async () => {
    const client = await mcpClient(router.url);
    const result = await client.callTool({ name: "echo_grpc", arguments: { city: "Oslo", days: 3 } });
    expect(result.isError).toBeFalsy();
    const echoed = JSON.parse((result.content as { text: string }[])[0]?.text ?? "{}");
    expect(echoed.arguments).toEqual({ city: "Oslo", days: "3" });
    expect(echoed.requestId).not.toBe("");
    await client.close();
  });

  it("calls a tool over Connect the same way", async () => {
    const client = await mcpClient(router.url);
    const result = await client.callTool({ name: "echo_connect", arguments: { city: "Lima" } });
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? "{}").arguments).toEqual({
      city: "Lima",
    });
    await client.close();
  });

  it("serves MCP over stdio from a router the client spawns", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [trestleCli, "serve", "--stdio", "--memory-store", "--port", "0", "--log-level", "warn"],
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe("trestle");
    const tools = await client.listTools();
    expect(tools.tools).toEqual([]);
    await client.close();
  });

  it("accepts a Wanaku capability's registration and a Wanaku tool as they are", async () => {
    // The JSON shapes of Wanaku's ServiceTarget and ToolReference, as a Wanaku capability and its CLI send them.
    const registered = await api<{ id: string }>(router.url, "POST", "/api/v1/management/discovery", {
      id: null,
      serviceName: "wanaku-style",
      host: "127.0.0.1",
      port: 1,
      serviceType: "tool-invoker",
      serviceSubType: null,
      languageName: null,
      languageType: null,
      languageSubType: null,
    });
    expect(registered.id).toMatch(/[0-9a-f-]{36}/);
    const again = await api<{ id: string }>(router.url, "POST", "/api/v1/management/discovery", {
      id: registered.id,
      serviceName: "wanaku-style",
      host: "127.0.0.1",
      port: 1,
      serviceType: "tool-invoker",
    });
    expect(again.id).toBe(registered.id);
    const heartbeat = await fetch(`${router.url}/api/v1/management/discovery/heartbeats`, {
      method: "POST",
      body: registered.id,
    });
    expect(heartbeat.status).toBe(200);
    const tool = await api<{ id: string; name: string }>(router.url, "POST", "/api/v1/tools", {
      id: null,
      name: "wanaku-weather",
      description: "Weather from a Wanaku capability",
      uri: "fixture://echo",
      type: "fixture-grpc",
      namespace: null,
      configurationURI: null,
      secretsURI: null,
      labels: { team: "weather" },
      inputSchema: {
        type: "object",
        properties: {
          city: { type: "string", description: "The city" },
          "X-Api-Version": {
            type: "string",
            description: "API version",
            target: "header",
            scope: "service",
            value: "2",
          },
        },
        required: ["city"],
      },
    });
    expect(tool.name).toBe("wanaku-weather");
    const client = await mcpClient(router.url);
    const result = await client.callTool({
      name: "wanaku-weather",
      arguments: { city: "Bern", wanaku_meta_trace: "t1" },
    });
    const echoed = JSON.parse((result.content as { text: string }[])[0]?.text ?? "{}");
    expect(echoed.arguments).toEqual({ city: "Bern" });
    expect(echoed.headers).toEqual({ trace: "t1", "X-Api-Version": "2" });
    const filtered = await api<{ name: string }[]>(
      router.url,
      "GET",
      "/api/v1/tools?labelFilter=team%3Dweather",
    );
    expect(filtered.map((t) => t.name)).toEqual(["wanaku-weather"]);
    await api(router.url, "DELETE", "/api/v1/management/discovery", {
      id: registered.id,
      serviceName: "wanaku-style",
    });
    await client.close();
  });

  it("tells a connected client when a tool is added through the REST API", async () => {
    const client = await mcpClient(router.url);
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified++;
    });
    // The client's GET stream opens just after initialization; add tools until one notification arrives.
    let n = 0;
    await eventually(
      async () => {
        await api(router.url, "POST", "/api/v1/tools", echoTool(`added_${n++}`, "fixture-grpc"));
        await new Promise((r) => setTimeout(r, 200));
        return notified > 0 ? true : undefined;
      },
      10_000,
      "list_changed",
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("added_0");
    await client.close();
  });

  it("streams a code execution's first output to the client before the engine finishes", async () => {
    await serviceHealthy(router.url, "fixture");
    const client = await mcpClient(router.url);
    const tools = await client.listTools();
    const exec = tools.tools.find((t) => t.name === "execute_code");
    expect(exec?.inputSchema.properties?.language).toMatchObject({ enum: ["sim"] });
    const arrivals: { text: string; at: number }[] = [];
    const started = Date.now();
    const result = await client.callTool(
      { name: "execute_code", arguments: { language: "sim", code: "one\ntwo\nthree", arguments: ["700"] } },
      CallToolResultSchema,
      { onprogress: (p) => arrivals.push({ text: p.message ?? "", at: Date.now() }) },
    );
    const finished = Date.now();
    expect(arrivals.map((a) => a.text.split(" @")[0])).toEqual(["one", "two", "three"]);
    // The engine needs about 1.4 s for three lines; the first must arrive well before the end.
    expect(finished - started).toBeGreaterThan(1_200);
    expect(finished - (arrivals[0]?.at ?? finished)).toBeGreaterThan(1_000);
    expect(result.structuredContent).toMatchObject({ exitCode: 0, status: "completed" });
    await client.close();
  });
});
