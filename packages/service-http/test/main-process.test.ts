import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { ServiceTarget } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import {
  buildServicePackage,
  type FakeRouter,
  type ServiceProcess,
  startFakeRouter,
  startServiceProcess,
} from "@trestle/test-support";
import { createConnectWanakuTransport } from "@trestle/transport-connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHttpServer, type TestHttpServer } from "./test-http-server.js";

let main: string;
let home: string;
let router: FakeRouter;
let upstream: TestHttpServer;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  [main, home, router, upstream] = await Promise.all([
    buildServicePackage("."),
    mkdtemp(join(tmpdir(), "trestle-http-main-")),
    startFakeRouter(),
    startTestHttpServer(),
  ]);
}, 120_000);

afterAll(async () => {
  await service?.stop(1_000);
  await Promise.all([router?.close(), upstream?.close()]);
  if (home) await rm(home, { recursive: true, force: true });
});

describe("trestle-http as a process", () => {
  it("prints its ready line, registers, serves a tool call, and deregisters on SIGTERM", async () => {
    service = await startServiceProcess(main, ["--port", "0", "--allow-private", "--home", home], {
      TRESTLE_ROUTER_URL: router.url,
    });
    expect(service.ready).toMatchObject({ event: "ready", service: "http", host: "127.0.0.1" });
    expect(service.ready.port).toBeGreaterThan(0);

    const registration = await router.waitFor((c) => c.method === "POST" && c.path.endsWith("/discovery"));
    expect(JSON.parse(registration.body)).toMatchObject({
      id: null,
      serviceName: "http",
      serviceType: "tool-invoker",
      host: "127.0.0.1",
      port: service.ready.port,
    });

    const target: ServiceTarget = {
      id: "svc-1",
      serviceName: "http",
      host: service.ready.host,
      port: service.ready.port,
      serviceType: "tool-invoker",
    };
    const transport = createConnectWanakuTransport();
    try {
      const reply = await transport.invokeTool(
        create(ToolInvokeRequestSchema, {
          uri: `${upstream.origin}/hello/{who}`,
          arguments: { who: "world" },
        }),
        target,
      );
      expect(JSON.parse(reply.content[0] ?? "")).toMatchObject({ method: "GET", url: "/hello/world" });
    } finally {
      await transport.close();
    }

    expect(await service.stop()).toBe(0);
    const deregistration = await router.waitFor((c) => c.method === "DELETE");
    expect(JSON.parse(deregistration.body)).toMatchObject({ id: "svc-1", serviceName: "http" });
  });

  it("refuses an unknown flag with its usage", async () => {
    const error = await startServiceProcess(main, ["--no-such-flag"], {}).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("exited with 2");
    expect(error?.message).toContain("Usage: trestle-http");
  });
});
