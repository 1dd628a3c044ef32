import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { ServiceTarget } from "@trestle/core";
import { ResourceRequestSchema } from "@trestle/proto";
import {
  buildServicePackage,
  type FakeRouter,
  type ServiceProcess,
  startFakeRouter,
  startServiceProcess,
} from "@trestle/test-support";
import { createConnectWanakuTransport } from "@trestle/transport-connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let main: string;
let base: string;
let router: FakeRouter;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  [main, base, router] = await Promise.all([
    buildServicePackage("."),
    mkdtemp(join(tmpdir(), "trestle-file-main-")),
    startFakeRouter(),
  ]);
  await mkdir(join(base, "served"));
  await writeFile(join(base, "served", "note.txt"), "served by a process");
}, 120_000);

afterAll(async () => {
  await service?.stop(1_000);
  await router?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

describe("trestle-file as a process", () => {
  it("prints its ready line, registers, serves a resource, and deregisters on SIGTERM", async () => {
    service = await startServiceProcess(
      main,
      ["--root", join(base, "served"), "--home", join(base, "home"), "--router", router.url],
      { TRESTLE_SERVICE_PORT: "0" },
    );
    expect(service.ready).toMatchObject({ event: "ready", service: "file", host: "127.0.0.1" });

    const registration = await router.waitFor((c) => c.method === "POST" && c.path.endsWith("/discovery"));
    expect(JSON.parse(registration.body)).toMatchObject({
      serviceName: "file",
      serviceType: "resource-provider",
      port: service.ready.port,
    });

    const target: ServiceTarget = {
      id: "svc-1",
      serviceName: "file",
      serviceType: "resource-provider",
      host: service.ready.host,
      port: service.ready.port,
    };
    const transport = createConnectWanakuTransport();
    try {
      const reply = await transport.acquireResource(
        create(ResourceRequestSchema, { location: "note.txt", type: "file", name: "note" }),
        target,
      );
      expect(reply.content).toEqual(["served by a process"]);
    } finally {
      await transport.close();
    }

    expect(await service.stop()).toBe(0);
    await router.waitFor((c) => c.method === "DELETE");
  });

  it("refuses to start on a root that does not exist", async () => {
    const error = await startServiceProcess(main, ["--root", join(base, "missing")], {}).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("exited with 1");
    expect(error?.message).toContain("is not an existing directory");
  });
});
