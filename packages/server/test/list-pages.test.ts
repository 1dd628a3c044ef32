import type { ServiceHandlers } from "@trestle/core";
import { afterEach, describe, expect, it } from "vitest";
import { META } from "../src/mcp/protocol-era.js";
import { FixtureCatalog, type McpFixture, startMcpFixture } from "./mcp-fixture.js";

const handlers: ServiceHandlers = {
  callTool: () => ({ content: [{ type: "text", text: "ok" }] }),
};

/** A catalog as the registry's: the same list object until the catalog changes (what lets pages be kept). */
class StableCatalog extends FixtureCatalog {
  #lists = new Map<string, unknown[]>();
  #stable<T extends { namespace?: string }>(kind: string, all: T[], ns: string): T[] {
    let list = this.#lists.get(`${kind} ${ns}`) as T[] | undefined;
    if (!list) {
      list = all.filter((item) => (item.namespace ?? "") === ns);
      this.#lists.set(`${kind} ${ns}`, list);
    }
    return list;
  }
  override listTools = (ns: string) => this.#stable("tools", this.tools, ns);
  override listResources = (ns: string) => this.#stable("resources", this.resources, ns);
  override listPrompts = (ns: string) => this.#stable("prompts", this.prompts, ns);
  change(): void {
    this.#lists.clear();
  }
}

function catalog(): StableCatalog {
  const c = new StableCatalog();
  c.tools.push(
    {
      name: "weather",
      title: "Weather ✓",
      description: "Forecast for a city",
      uri: "echo://",
      type: "fixture",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    { name: "second", uri: "echo://", type: "fixture", inputSchema: { type: "object" } },
    { name: "third", uri: "echo://", type: "fixture", inputSchema: { type: "object" } },
  );
  return c;
}

const fixtures: McpFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((f) => f.close()));
});

async function start(): Promise<McpFixture & { catalog: StableCatalog }> {
  const fixture = await startMcpFixture(handlers, { catalog: catalog() });
  fixtures.push(fixture);
  return fixture as McpFixture & { catalog: StableCatalog };
}

interface RawReply {
  status: number;
  headers: Headers;
  text: string;
}

async function post(fixture: McpFixture, body: unknown, headers: Record<string, string>): Promise<RawReply> {
  const response = await fetch(`${fixture.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A legacy session at `revision`: its headers for the requests that follow. */
async function session(fixture: McpFixture, revision: string): Promise<Record<string, string>> {
  const init = await post(
    fixture,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "pages", version: "1" } },
    },
    {},
  );
  const id = init.headers.get("mcp-session-id");
  if (!id) throw new Error(`no session: ${init.status} ${init.text}`);
  const headers = { "mcp-session-id": id, "mcp-protocol-version": revision };
  await post(fixture, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return headers;
}

async function list(
  fixture: McpFixture,
  headers: Record<string, string>,
  id: string | number,
  cursor?: string,
): Promise<{ reply: RawReply; result: { tools: Record<string, unknown>[]; nextCursor?: string } }> {
  const reply = await post(
    fixture,
    { jsonrpc: "2.0", id, method: "tools/list", params: cursor ? { cursor } : {} },
    headers,
  );
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Number(reply.headers.get("content-length"))).toBe(Buffer.byteLength(reply.text));
  const body = JSON.parse(reply.text) as { jsonrpc: string; id: unknown; result: never };
  expect(body.jsonrpc).toBe("2.0");
  expect(body.id).toBe(id);
  return { reply, result: body.result };
}

async function listModern(fixture: McpFixture, id: number) {
  const reply = await post(
    fixture,
    {
      jsonrpc: "2.0",
      id,
      method: "tools/list",
      params: {
        _meta: {
          [META.protocolVersion]: "2026-07-28",
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "pages", version: "1" },
        },
      },
    },
    { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
  );
  return JSON.parse(reply.text) as { id: number; result: Record<string, unknown> };
}

async function call(fixture: McpFixture, headers: Record<string, string>, id: number, method: string) {
  const reply = await post(fixture, { jsonrpc: "2.0", id, method, params: {} }, headers);
  return (JSON.parse(reply.text) as { result: Record<string, { name: string }[]> }).result;
}

describe("list pages encoded once and served again", () => {
  it("answers a repeated page with the same result under each request's own id", async () => {
    const fixture = await start();
    const headers = await session(fixture, "2025-11-25");
    const first = await list(fixture, headers, 1);
    const again = await list(fixture, headers, 'again-"quoted"');
    expect(again.result).toEqual(first.result);
    expect(first.result.tools.map((t) => t.name)).toEqual(["weather", "second"]);
    const next = await list(fixture, headers, 2, first.result.nextCursor);
    expect(next.result.tools.map((t) => t.name)).toEqual(["third"]);
    expect(next.result.nextCursor).toBeUndefined();
  });

  it("gives each revision its own encoding of a kept page, however the requests interleave", async () => {
    const fixture = await start();
    const current = await session(fixture, "2025-11-25");
    const older = await session(fixture, "2025-03-26");
    for (let round = 0; round < 2; round++) {
      const now = (await list(fixture, current, round)).result.tools[0];
      expect(now).toMatchObject({ name: "weather", title: "Weather ✓" });
      const before = (await list(fixture, older, round)).result.tools[0];
      expect(before).not.toHaveProperty("title");
      expect(before).toMatchObject({ name: "weather", annotations: { title: "Weather ✓" } });
      const stateless = await listModern(fixture, round);
      expect(stateless.result).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" });
      expect(stateless.result._meta).toHaveProperty([META.serverInfo]);
      expect((await list(fixture, current, round)).result).not.toHaveProperty("resultType");
    }
  });

  it("lists a changed catalog, not the pages it kept of the old one", async () => {
    const fixture = await start();
    const headers = await session(fixture, "2025-11-25");
    await list(fixture, headers, 1);
    fixture.catalog.tools.unshift({
      name: "added",
      uri: "echo://",
      type: "fixture",
      inputSchema: { type: "object" },
    });
    fixture.catalog.change();
    const after = await list(fixture, headers, 2);
    expect(after.result.tools.map((t) => t.name)).toEqual(["added", "weather"]);
  });

  it("answers a page kept for single answers inside a batch too", async () => {
    const fixture = await start();
    const headers = await session(fixture, "2025-03-26");
    await list(fixture, headers, 1);
    const reply = await post(
      fixture,
      [
        { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} },
        { jsonrpc: "2.0", id: 8, method: "ping" },
      ],
      headers,
    );
    const answers = JSON.parse(reply.text) as { id: number; result: { tools?: { name: string }[] } }[];
    const listed = answers.find((a) => a.id === 7);
    expect(listed?.result.tools?.map((t) => t.name)).toEqual(["weather", "second"]);
    expect(answers.find((a) => a.id === 8)?.result).toEqual({});
  });

  it("keeps resource, template and prompt pages the same way, until the catalog changes", async () => {
    const fixture = await start();
    fixture.catalog.resources.push(
      { name: "readme", location: "file:///readme.md", type: "fixture" },
      { name: "logs", location: "file:///logs/{day}", type: "fixture" },
    );
    fixture.catalog.prompts.push({ name: "summarise", messages: [] } as never);
    const headers = await session(fixture, "2025-11-25");
    for (let i = 0; i < 2; i++) {
      expect((await call(fixture, headers, i, "resources/list")).resources?.map((r) => r.name)).toEqual([
        "readme",
      ]);
      expect(
        (await call(fixture, headers, i, "resources/templates/list")).resourceTemplates?.map((r) => r.name),
      ).toEqual(["logs"]);
      expect((await call(fixture, headers, i, "prompts/list")).prompts?.map((p) => p.name)).toEqual([
        "summarise",
      ]);
    }
    fixture.catalog.resources.push({ name: "notes", location: "file:///notes.md", type: "fixture" });
    fixture.catalog.prompts.push({ name: "translate", messages: [] } as never);
    fixture.catalog.change();
    expect((await call(fixture, headers, 9, "resources/list")).resources?.map((r) => r.name)).toEqual([
      "readme",
      "notes",
    ]);
    expect((await call(fixture, headers, 9, "prompts/list")).prompts?.map((p) => p.name)).toEqual([
      "summarise",
      "translate",
    ]);
  });
});
