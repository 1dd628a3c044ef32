import { Agent, request } from "node:http";
import { type CapabilityServer, createCapabilityServer } from "@trestle/capability";
import { Code, TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FloorRouter, startFloorRouter } from "../src/floor-router.js";
import { createMcpHttpClient } from "../src/mcp-http-client.js";

/** One request to the floor's endpoint, answered with its status and content type. */
function plain(url: string, method: string) {
  return new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] });
      res.destroy();
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the floor router (issue 19's measuring stick)", () => {
  let capability: CapabilityServer;
  let floor: FloorRouter;
  const agent = new Agent({ keepAlive: true });

  beforeAll(async () => {
    capability = createCapabilityServer({
      toolInvoker(invocation) {
        if (invocation.arguments.text === "fail") throw new TrestleError("the echo refused", Code.NotFound);
        return { content: [`${invocation.uri} ${invocation.arguments.text ?? ""}`] };
      },
    });
    const { host, port } = await capability.listen();
    floor = await startFloorRouter({ capability: { host, port } });
  });

  afterAll(async () => {
    agent.destroy();
    await floor?.close();
    await capability?.close();
  });

  it("answers an MCP client's session and tools/call with what a real gRPC capability replied", async () => {
    const client = createMcpHttpClient({ url: floor.url, agent });
    const initialized = await client.initialize();
    expect(initialized).toMatchObject({ protocolVersion: "2025-11-25", capabilities: { tools: {} } });
    expect(client.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const reply = await client.request("tools/call", { name: "echo", arguments: { text: "hello" } });
    expect(reply.result).toEqual({ content: [{ type: "text", text: "floor://echo hello" }] });
  });

  it("turns a gRPC failure into an error result, and an unknown method into JSON-RPC's -32601", async () => {
    const client = createMcpHttpClient({ url: floor.url, agent });
    await client.initialize();
    const failed = await client.request("tools/call", { name: "echo", arguments: { text: "fail" } });
    expect(failed.result).toMatchObject({ isError: true });
    expect(JSON.stringify(failed.result)).toContain("gRPC status 5: the echo refused");
    const unknown = await client.request("prompts/list");
    expect(unknown.error).toMatchObject({ code: -32601 });
  });

  it("holds a GET open as an event stream, ends a session on DELETE and refuses other methods", async () => {
    expect(await plain(floor.url, "GET")).toEqual({ status: 200, type: "text/event-stream" });
    expect((await plain(floor.url, "DELETE")).status).toBe(200);
    expect((await plain(floor.url, "PUT")).status).toBe(405);
  });
});
