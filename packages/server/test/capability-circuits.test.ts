import type { ServiceTarget } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { createRouter, type Router } from "../src/router.js";

const TOKEN = "circuits-admin-token-0123456789ab";

describe("GET /api/v1/capabilities/circuits", () => {
  let router: Router;
  const api = async (method: string, path: string, body?: unknown, token = TOKEN) => {
    const response = await fetch(`${router.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as { data: unknown; error: unknown } };
  };

  beforeAll(async () => {
    router = await createRouter(
      resolveConfig({
        env: {},
        file: { tokens: [{ name: "ops", token: TOKEN, scopes: ["admin"] }] },
        flags: { host: "127.0.0.1", port: "0", memoryStore: true, logLevel: "silent" },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await router?.close();
  });

  it("answers each registered instance's circuit and calls in flight on this router", async () => {
    const registered = await api("POST", "/api/v1/management/discovery", {
      serviceName: "weather",
      host: "127.0.0.1",
      port: 9,
      serviceType: "tool-invoker",
    });
    expect(registered.status).toBe(200);
    const target = registered.json.data as ServiceTarget;

    expect((await api("GET", "/api/v1/capabilities/circuits")).json.data).toEqual([
      { id: target.id, state: "closed", inFlight: 0 },
    ]);

    // Calls the router made, as its call path reports them to the resolver: three service failures in a row open
    // the circuit (the default threshold), one call still out.
    const { resolver } = router.registry;
    for (let i = 0; i < 4; i++) resolver.callStarted?.(target);
    for (let i = 0; i < 3; i++) resolver.callEnded?.(target, true);
    expect((await api("GET", "/api/v1/capabilities/circuits")).json.data).toEqual([
      { id: target.id, state: "open", inFlight: 1 },
    ]);
  });

  it("is not taken for a registration id, and needs the admin token", async () => {
    const one = await api("GET", "/api/v1/capabilities/no-such-id");
    expect(one.status).toBe(404);
    expect((await api("GET", "/api/v1/capabilities/circuits", undefined, "")).status).toBe(401);
  });
});
