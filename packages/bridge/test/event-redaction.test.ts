import type { ToolReference } from "@trestle/core";
import type { ToolCallStartedEvent } from "@trestle/core/events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInvokerBridge, type InvokerBridge } from "../src/index.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness;
let bridge: InvokerBridge;

beforeEach(() => {
  harness = createHarness();
  harness.serve(
    { toolInvoker: () => ({ content: ["ok"] }) },
    { serviceName: "svc", serviceType: "tool-invoker" },
  );
  bridge = createInvokerBridge(harness.deps);
});

afterEach(async () => {
  await harness.close();
});

async function startedFor(args: Record<string, unknown>, extra: Partial<ToolReference> = {}) {
  await bridge.execute(args, { name: "t", type: "svc", uri: "x://y", ...extra });
  const started = harness.events.find((e) => e.type === "started");
  expect(started).toBeDefined();
  return started as ToolCallStartedEvent;
}

// Values shorter than 4 characters escape the value scrubber (core's scrubSecrets leaves them alone), so
// these tests prove each key-based rule on its own.
describe("contract §8: redaction in events", () => {
  it("removes wanaku_auth_* and wanaku_meta_* arguments", async () => {
    const started = await startedFor({ city: "Oslo", wanaku_auth_X: "a1", wanaku_meta_Y: "m1" });
    expect(started.arguments).toEqual({ city: "Oslo" });
  });

  it.each([
    "password",
    "dbPassword",
    "secret",
    "client_SECRET",
    "token",
    "refreshToken",
    "apikey",
    "ApiKey",
    "api_key",
    "credentials",
    "private_key",
    "passphrase",
    "pwd",
    "cookie",
    "client-secret",
    "x_api_key",
  ])("replaces the value of the argument '%s' with [REDACTED]", async (key) => {
    const started = await startedFor({ [key]: "pw1", city: "Oslo" });
    expect(started.arguments).toEqual({ [key]: "[REDACTED]", city: "Oslo" });
  });

  it.each(["Authorization", "x-api-key", "Api-Key", "X-Auth-Token", "X-Bearer", "Cookie", "X-Session-Id"])(
    "replaces the value of the header '%s' with [REDACTED]",
    async (header) => {
      const started = await startedFor({ [`wanaku_meta_${header}`]: "h1", wanaku_meta_Accept: "json" });
      expect(started.headers).toEqual({ [header]: "[REDACTED]", Accept: "json" });
    },
  );

  it("redacts a header filled from wanaku_auth_*, whatever its name", async () => {
    const started = await startedFor({ "wanaku_auth_X-Custom": "a1" });
    expect(started.headers).toEqual({ "X-Custom": "[REDACTED]" });
  });

  it("keeps ordinary headers, including header properties with their default values", async () => {
    const started = await startedFor(
      {},
      {
        inputSchema: {
          type: "object",
          properties: { "X-Tenant": { target: "header", scope: "service", value: "acme" } },
        },
      },
    );
    expect(started.headers).toEqual({ "X-Tenant": "acme" });
  });

  it("redacts the secrets URI, and records none when the tool has none", async () => {
    expect((await startedFor({}, { secretsURI: "file:///run/secrets/db" })).secretsURI).toBe("[REDACTED]");
    harness.events.length = 0;
    expect((await startedFor({})).secretsURI).toBe("");
  });

  it("scrubs a secret value wherever else it appears in the event (a header named after a secret argument)", async () => {
    const started = await startedFor(
      { password: "hunter2-hunter2", note: "my password is hunter2-hunter2" },
      { inputSchema: { type: "object", properties: { password: { target: "header", scope: "service" } } } },
    );
    expect(JSON.stringify(harness.events)).not.toContain("hunter2-hunter2");
    expect(started.arguments.note).toBe("my password is [REDACTED]");
    expect(started.headers.password).toBe("[REDACTED]");
  });

  it("keeps an argument that merely starts like a secret word (tokens_used)", async () => {
    const started = await startedFor({ tokens_used: "12" });
    expect(started.arguments).toEqual({ tokens_used: "12" });
  });

  it("scrubs the body like the arguments: secret-named fields redacted, and their values scrubbed elsewhere", async () => {
    const body = { user: "alice", client_secret: "cs1", nested: { api_key: "body-key-1234" } };
    const started = await startedFor(
      { wanaku_body: JSON.stringify(body), note: "sent body-key-1234" },
      { inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } } },
    );
    expect(JSON.parse(started.body ?? "")).toEqual({
      user: "alice",
      client_secret: "[REDACTED]",
      nested: { api_key: "[REDACTED]" },
    });
    expect(started.arguments.note).toBe("sent [REDACTED]");
    expect(JSON.stringify(harness.events)).not.toContain("body-key-1234");
  });

  it("redacts secret fields of a form body", async () => {
    const started = await startedFor(
      { wanaku_body: "grant_type=client_credentials&client_secret=cs1&scope=read" },
      { inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } } },
    );
    expect(started.body).toBe("grant_type=client_credentials&client_secret=[REDACTED]&scope=read");
  });

  it("keeps secret-named fields of the reply out of the COMPLETED event, and gives the client the reply as it is", async () => {
    harness.serve(
      { toolInvoker: () => ({ content: ['{"access_token":"at-5678","expires_in":3600}'] }) },
      { serviceName: "login", serviceType: "tool-invoker" },
    );
    const result = await bridge.execute({}, { name: "login", type: "login", uri: "x://login" });
    expect(result.content).toEqual([{ type: "text", text: '{"access_token":"at-5678","expires_in":3600}' }]);
    const completed = harness.events.find((e) => e.type === "completed");
    expect(completed?.content).toEqual(['{"access_token":"[REDACTED]","expires_in":3600}']);
  });
});
