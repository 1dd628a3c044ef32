import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createJsonApi, defineOperation } from "../src/http/json-api.js";

const addThing = defineOperation({
  id: "addThing",
  method: "POST",
  path: "/api/v1/things",
  summary: "Add a thing",
  tags: ["test"],
  scope: "admin",
  query: z.object({ namespace: z.string().optional() }),
  body: {
    kind: "json",
    schema: z.object({ name: z.string().min(1, "must not be empty"), size: z.number().int() }),
    what: "thing",
    description: "A thing",
  },
  response: {
    kind: "json",
    status: 201,
    description: "The thing",
    data: z.object({ name: z.string(), size: z.number(), namespace: z.string() }),
  },
  errors: [400],
});

const getThing = defineOperation({
  id: "getThing",
  method: "GET",
  path: "/api/v1/things/{name}",
  summary: "Get a thing",
  tags: ["test"],
  scope: "admin",
  params: z.object({ name: z.string() }),
  query: z.object({ limit: z.string().regex(/^\d+$/, "must be a number").optional() }),
  response: { kind: "json", status: 200, description: "The thing", data: z.object({ name: z.string() }) },
  errors: [404],
});

let server: Server;
let base: string;

beforeAll(async () => {
  const api = createJsonApi({ maxBodyBytes: 4096 });
  api.route(addThing, ({ body, query }) => ({ data: { ...body, namespace: query.namespace ?? "" } }));
  api.route(getThing, ({ params }) => ({ data: { name: params.name } }));
  server = createServer((req, res) => {
    void api.handle(req, res, new URL(req.url ?? "/", "http://localhost"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function send(method: string, path: string, body?: string, type = "application/json") {
  const response = await fetch(`${base}${path}`, {
    method,
    ...(body !== undefined ? { body, headers: { "content-type": type } } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    envelope: text ? (JSON.parse(text) as { error: { message: string } | null; data: unknown }) : undefined,
  };
}

describe("the management API's router", () => {
  it("validates the body with the operation's schema and answers with its status, in the envelope", async () => {
    const ok = await send("POST", "/api/v1/things?namespace=blue", JSON.stringify({ name: "a", size: 2 }));
    expect(ok.status).toBe(201);
    expect(ok.envelope).toEqual({ error: null, data: { name: "a", size: 2, namespace: "blue" } });

    const bad = await send("POST", "/api/v1/things", JSON.stringify({ name: "", size: 1.5 }));
    expect(bad.status).toBe(400);
    expect(bad.envelope?.data).toBeNull();
    expect(bad.envelope?.error?.message).toMatch(/^Invalid thing: name: must not be empty; size: /);
  });

  it("answers a malformed JSON body 400 with a clear message that does not echo the body", async () => {
    const secret = "hunter2-canary";
    const broken = await send("POST", "/api/v1/things", `{"name": "${secret}", size: }`);
    expect(broken.status).toBe(400);
    expect(broken.envelope?.error?.message).toMatch(/^The request body is not valid JSON/);
    expect(broken.text).not.toContain(secret);
    expect(broken.text).not.toContain("size");
  });

  it("refuses a body that is not JSON, or none", async () => {
    const form = await send("POST", "/api/v1/things", "name=a", "application/x-www-form-urlencoded");
    expect(form.status).toBe(400);
    expect(form.envelope?.error?.message).toContain("Content-Type: application/json");
    const empty = await send("POST", "/api/v1/things", "");
    expect(empty.status).toBe(400);
    const list = await send("POST", "/api/v1/things", "[1]");
    expect(list.envelope?.error?.message).toBe("Invalid thing: expected a JSON object, got an array");
  });

  it("validates the query and decodes path parameters", async () => {
    const named = await send("GET", "/api/v1/things/caf%C3%A9?limit=3");
    expect(named.envelope).toEqual({ error: null, data: { name: "café" } });
    const badQuery = await send("GET", "/api/v1/things/a?limit=many");
    expect(badQuery.status).toBe(400);
    expect(badQuery.envelope?.error?.message).toBe("Invalid query: limit: must be a number");
  });

  it("answers 404 for no such path and 405 for a method the path does not have, HEAD included", async () => {
    const missing = await send("GET", "/api/v1/nothing");
    expect(missing.status).toBe(404);
    expect(missing.envelope?.error?.message).toBe("No management endpoint at GET /api/v1/nothing");
    const wrong = await send("DELETE", "/api/v1/things");
    expect(wrong.status).toBe(405);
    expect(wrong.envelope?.error?.message).toBe("Method DELETE is not allowed on /api/v1/things");
    const head = await fetch(`${base}/api/v1/things/a`, { method: "HEAD" });
    expect(head.status).toBe(405);
  });
});
