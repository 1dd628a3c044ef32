import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { ServiceTarget } from "@trestle/core";
import { CodeExecutionRequestSchema, ExecutionStatus } from "@trestle/proto";
import {
  buildServicePackage,
  type FakeRouter,
  type ServiceProcess,
  startFakeRouter,
  startServiceProcess,
} from "@trestle/test-support";
import { createConnectWanakuTransport } from "@trestle/transport-connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPython } from "../src/index.js";

let main: string;
let home: string;
let router: FakeRouter;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  [main, home, router] = await Promise.all([
    buildServicePackage("."),
    mkdtemp(join(tmpdir(), "trestle-exec-main-")),
    startFakeRouter(),
  ]);
}, 120_000);

afterAll(async () => {
  await service?.stop(1_000);
  await router?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe("trestle-exec as a process", () => {
  it("registers once per language, runs code, and deregisters every language on SIGTERM", async () => {
    const languages = ["javascript", ...(findPython() ? ["python"] : []), "bash"];
    service = await startServiceProcess(main, ["--enable-bash", "--home", home, "--router", router.url], {});
    expect(service.ready).toMatchObject({ event: "ready", service: "exec", engine: "trestle", languages });

    for (const language of languages) {
      const call = await router.waitFor(
        (c) =>
          c.method === "POST" &&
          c.path.endsWith("/discovery") &&
          JSON.parse(c.body).languageName === language,
      );
      expect(JSON.parse(call.body)).toMatchObject({
        serviceName: "trestle",
        serviceType: "code-execution-engine",
        serviceSubType: "trestle",
        languageName: language,
        port: service.ready.port,
      });
    }

    const target: ServiceTarget = {
      id: "svc-1",
      serviceName: "trestle",
      serviceType: "code-execution-engine",
      serviceSubType: "trestle",
      languageName: "javascript",
      host: service.ready.host,
      port: service.ready.port,
    };
    const transport = createConnectWanakuTransport();
    const output: string[] = [];
    let final: ExecutionStatus | undefined;
    try {
      const request = create(CodeExecutionRequestSchema, {
        uri: "code-execution-engine://trestle/javascript",
        code: 'console.log("from " + process.argv[2])',
        arguments: { arg0: "a process" },
      });
      for await (const reply of transport.executeCode(request, target)) {
        output.push(...reply.content);
        final = reply.status;
      }
    } finally {
      await transport.close();
    }
    expect(output).toContain("from a process\n");
    expect(final).toBe(ExecutionStatus.COMPLETED);

    expect(await service.stop()).toBe(0);
    for (const language of languages) {
      await router.waitFor((c) => c.method === "DELETE" && JSON.parse(c.body).languageName === language);
    }
  });
});
