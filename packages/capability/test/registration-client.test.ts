import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code } from "@trestle/core";
import { type FakeRouter, startFakeRouter } from "@trestle/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createRegistrationClient,
  type RegistrationClient,
  type RegistrationClientOptions,
  type RegistrationEvent,
} from "../src/index.js";
import { createRetryBackoff } from "../src/retry-backoff.js";

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const target = {
  serviceName: "weather",
  host: "127.0.0.1",
  port: 9190,
  serviceType: "tool-invoker" as const,
  protocol: "connect",
};

describe("registration client", () => {
  let router: FakeRouter;
  let dir: string;
  let events: RegistrationEvent[];
  const clients: RegistrationClient[] = [];

  beforeEach(async () => {
    router = await startFakeRouter("t0k3n");
    dir = mkdtempSync(join(tmpdir(), "trestle-registration-"));
    events = [];
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.stop()));
    await router.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function client(overrides: Partial<RegistrationClientOptions> = {}): RegistrationClient {
    const c = createRegistrationClient({
      routerUrl: router.url,
      target,
      token: "t0k3n",
      idFile: join(dir, "state", "service.id"),
      heartbeatIntervalMs: 20,
      retryInitialDelayMs: 10,
      retryMaxDelayMs: 80,
      onEvent: (event) => events.push(event),
      ...overrides,
    });
    clients.push(c);
    return c;
  }

  const heartbeats = () => router.requests.filter((r) => r.path.endsWith("/heartbeats"));
  const registrations = () =>
    router.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/management/discovery");

  it("registers with a null id, keeps the id in its file, heartbeats it as text, deregisters on stop", async () => {
    const registration = client();
    registration.start();
    const registered = await registration.ready();
    expect(registered).toMatchObject({ ...target, id: expect.any(String) });
    const id = registered.id;
    expect(registration.id()).toBe(id);
    expect(JSON.parse(registrations()[0]?.body ?? "{}")).toEqual({
      id: null,
      serviceName: "weather",
      host: "127.0.0.1",
      port: 9190,
      serviceType: "tool-invoker",
      serviceSubType: null,
      languageName: null,
      languageType: null,
      languageSubType: null,
      protocol: "connect",
    });
    expect(readFileSync(join(dir, "state", "service.id"), "utf8").trim()).toBe(id);

    await until(() => heartbeats().length >= 2, "two heartbeats");
    expect(heartbeats()[0]).toMatchObject({ body: id, authorization: "Bearer t0k3n" });
    expect(heartbeats()[0]?.contentType).toMatch(/^text\/plain/);

    await registration.stop();
    const last = router.requests.at(-1);
    expect(last?.method).toBe("DELETE");
    expect(JSON.parse(last?.body ?? "{}")).toMatchObject({ id, serviceName: "weather" });
    expect(router.services.size).toBe(0);
    expect(events.map((e) => e.type)).toEqual(["registered", "deregistered"]);
    const count = router.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(router.requests.length).toBe(count); // no heartbeat after stop
  });

  it("registers again under the kept id after a restart", async () => {
    const first = client();
    first.start();
    const { id } = await first.ready();
    await first.stop();
    const restarted = client();
    restarted.start();
    expect((await restarted.ready()).id).toBe(id);
    expect(JSON.parse(registrations().at(-1)?.body ?? "{}").id).toBe(id);
  });

  it("registers again, under the same id, when the router answers a heartbeat with 404", async () => {
    const registration = client();
    registration.start();
    const { id } = await registration.ready();
    router.forget();
    await until(
      () => events.some((e) => e.type === "registered" && e.again),
      "the registration to come back",
    );
    expect(router.services.has(id)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["registered", "forgotten", "registered"]);
    expect(events.at(-1)).toEqual({ type: "registered", id, again: true });
  });

  it("retries with growing delays while the router is down and registers again when it is back", async () => {
    const registration = client();
    registration.start();
    const { id } = await registration.ready();
    await router.down();
    router.forget(); // the router comes back without its state
    await until(() => events.filter((e) => e.type === "retrying").length >= 4, "four retries");
    const retries = events.filter((e) => e.type === "retrying");
    expect(retries.slice(0, 4).map((e) => e.type === "retrying" && e.attempt)).toEqual([0, 1, 2, 3]);
    expect(retries[0]?.type === "retrying" && retries[0].error.code).toBe(Code.Unavailable);
    // Attempt 3 has a ceiling of 80 ms (10 doubled three times): its delay is at least half of it.
    expect(retries[3]?.type === "retrying" && retries[3].delayMs).toBeGreaterThanOrEqual(40);
    await router.up();
    await until(
      () => events.some((e) => e.type === "registered" && e.again),
      "the registration after the router came back",
    );
    expect(router.services.has(id)).toBe(true);
    expect(JSON.parse(registrations().at(-1)?.body ?? "{}").id).toBe(id);
  });

  it("reports a refused token without retrying silently and without the token in the message", async () => {
    const registration = client({ token: "wrong-secret" });
    registration.start();
    await until(() => events.some((e) => e.type === "retrying"), "a retry");
    const retry = events.find((e) => e.type === "retrying");
    expect(retry?.type === "retrying" && retry.error.code).toBe(Code.Unauthenticated);
    expect(JSON.stringify(events)).not.toContain("wrong-secret");
    expect(retry?.type === "retrying" && retry.error.message).not.toContain("wrong-secret");
  });

  it("gives up on a router that does not answer within requestTimeoutMs, and retries", async () => {
    const silent = createServer(() => undefined); // accepts and never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const registration = client({ routerUrl: `http://127.0.0.1:${port}`, requestTimeoutMs: 50 });
      registration.start();
      await until(() => events.filter((e) => e.type === "retrying").length >= 2, "two retries");
      const retry = events.find((e) => e.type === "retrying");
      expect(retry?.type === "retrying" && retry.error.code).toBe(Code.Unavailable);
      expect(retry?.type === "retrying" && retry.error.message).toContain(
        "The router could not be reached (POST /api/v1/management/discovery)",
      );
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("does not follow a redirect: the registration fails with its status and the token goes nowhere else", async () => {
    const redirecting = createServer((_req, res) => {
      res.writeHead(307, { location: `${router.url}/api/v1/management/discovery` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = redirecting.address() as AddressInfo;
      const registration = client({ routerUrl: `http://127.0.0.1:${port}` });
      registration.start();
      await until(() => events.some((e) => e.type === "retrying"), "a retry");
      const retry = events.find((e) => e.type === "retrying");
      expect(retry?.type === "retrying" && retry.error.message).toContain("answered HTTP 307");
      expect(router.requests).toEqual([]);
    } finally {
      redirecting.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });

  it("sends every call through the fetch it is given", async () => {
    const sent: string[] = [];
    const registration = client({
      fetch: (input, init) => {
        sent.push(`${init?.method} ${new URL(String(input)).pathname}`);
        return fetch(input, init);
      },
    });
    registration.start();
    await registration.ready();
    await until(() => heartbeats().length >= 1, "a heartbeat");
    await registration.stop();
    expect(sent[0]).toBe("POST /api/v1/management/discovery");
    expect(sent).toContain("POST /api/v1/management/discovery/heartbeats");
    expect(sent.at(-1)).toBe("DELETE /api/v1/management/discovery");
    expect(sent.length).toBe(router.requests.length);
  });

  it("rejects ready() with Canceled when stopped before any registration, and sends no deregistration", async () => {
    await router.down();
    const registration = client();
    registration.start();
    await until(() => events.some((e) => e.type === "retrying"), "a retry");
    await registration.stop();
    await expect(registration.ready()).rejects.toMatchObject({ code: Code.Canceled });
    expect(router.requests.filter((r) => r.method === "DELETE")).toEqual([]);
  });
});

describe("retry backoff", () => {
  it("doubles its ceiling up to the maximum, drawing each delay between half the ceiling and the ceiling", () => {
    const low = createRetryBackoff(100, 1_000, () => 0);
    const high = createRetryBackoff(100, 1_000, () => 1);
    expect([0, 1, 2, 3, 4, 10].map((a) => low.delayMs(a))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 10].map((a) => high.delayMs(a))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });
});
