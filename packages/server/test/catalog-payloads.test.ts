import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { InvokerBridge, ResourceBridge } from "@trestle/bridge";
import type { ResourcePayload, ToolPayload } from "@trestle/core/catalog";
import { createRegistry, openStore, type Registry } from "@trestle/registry";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJsonApi } from "../src/http/json-api.js";
import { registerCatalogRoutes } from "../src/management/catalog-routes.js";

/** What the capability was asked to provision, in order. */
const provisioned: string[] = [];
/** When set, provisioning waits for it: a request stays in flight while the test sends another. */
let gate: Promise<void> | undefined;

const invoker = {
  async provision(payload: ToolPayload) {
    provisioned.push(`tool ${payload.payload.name} ${payload.secretsData}`);
    await gate;
    return { ...payload.payload, secretsURI: "file:///home/tool.secrets.properties" };
  },
} as unknown as InvokerBridge;

const resources = {
  async provision(payload: ResourcePayload) {
    provisioned.push(`resource ${payload.payload.name} ${payload.secretsData}`);
    return { ...payload.payload, secretsURI: "file:///home/resource.secrets.properties" };
  },
} as unknown as ResourceBridge;

let registry: Registry;
let server: Server;
let base: string;

async function post(path: string, body: unknown): Promise<number> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

beforeAll(async () => {
  registry = await createRegistry({ store: await openStore({ memory: true }) });
  const api = createJsonApi({ maxBodyBytes: 1_000_000 });
  registerCatalogRoutes(api, { registry, invoker, resources });
  server = createServer((req, res) => {
    void api.handle(req, res, new URL(req.url ?? "/", "http://localhost"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await registry.catalog.addTool({ name: "weather", type: "http", uri: "https://x/weather" });
  await registry.catalog.addResource({ name: "ledger", type: "file", location: "file:///srv/ledger" });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await registry.close();
});

beforeEach(() => {
  provisioned.length = 0;
  gate = undefined;
});

describe("provisioning payloads are checked before anything is provisioned", () => {
  it("a tool whose name is taken is refused with 409 without reaching the capability", async () => {
    const status = await post("/api/v1/tools/payloads", {
      payload: { name: "weather", type: "http", uri: "https://evil/" },
      secretsData: "k=evil",
    });
    expect(status).toBe(409);
    expect(provisioned).toEqual([]);
  });

  it("a tool for a namespace that does not exist is refused with 404 without reaching the capability", async () => {
    const status = await post("/api/v1/tools/payloads", {
      payload: { name: "weather", type: "http", uri: "https://x/", namespace: "nowhere" },
      secretsData: "k=evil",
    });
    expect(status).toBe(404);
    expect(provisioned).toEqual([]);
  });

  it("an invalid tool or resource is refused with 400 without reaching the capability", async () => {
    expect(await post("/api/v1/tools/payloads", { payload: { name: "bad name!", type: "http" } })).toBe(400);
    expect(await post("/api/v1/resources/payloads", { payload: { name: "r", type: "file" } })).toBe(400);
    expect(provisioned).toEqual([]);
  });

  it("a resource whose name or location is taken is refused with 409 without reaching the capability", async () => {
    const sameName = { name: "ledger", type: "file", location: "file:///srv/other" };
    const sameLocation = { name: "other", type: "file", location: "file:///srv/ledger" };
    expect(await post("/api/v1/resources/payloads", { payload: sameName, secretsData: "p=1" })).toBe(409);
    expect(await post("/api/v1/resources/payloads", { payload: sameLocation, secretsData: "p=1" })).toBe(409);
    expect(provisioned).toEqual([]);
  });

  it("a second request for an entry still being provisioned is refused, so the capability is asked once", async () => {
    let release: () => void = () => undefined;
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const payload = { payload: { name: "forecast", type: "http", uri: "https://x/f" }, secretsData: "k=1" };
    const first = post("/api/v1/tools/payloads", payload);
    await expect.poll(() => provisioned.length).toBe(1);
    expect(await post("/api/v1/tools/payloads", { ...payload, secretsData: "k=2" })).toBe(409);
    release();
    expect(await first).toBe(200);
    expect(provisioned).toEqual(["tool forecast k=1"]);
    expect(registry.catalog.getTool("", "forecast")?.secretsURI).toBe("file:///home/tool.secrets.properties");
  });

  it("an accepted resource is provisioned once and added with the returned URI", async () => {
    const payload = {
      payload: { name: "notes", type: "file", location: "file:///srv/notes" },
      secretsData: "p=1",
    };
    expect(await post("/api/v1/resources/payloads", payload)).toBe(200);
    expect(provisioned).toEqual(["resource notes p=1"]);
    expect(registry.catalog.getResourceByName("", "notes")?.secretsURI).toBe(
      "file:///home/resource.secrets.properties",
    );
  });
});
