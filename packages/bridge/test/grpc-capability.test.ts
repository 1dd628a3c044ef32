import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CapabilityServer,
  createCapabilityServer,
  createFileProvisioner,
  readProvisionedConfiguration,
} from "@trestle/capability";
import { Code, type ServiceTarget, type ToolReference, TrestleError } from "@trestle/core";
import { createTransportSelector, type TransportSelector } from "@trestle/core/routing";
import { ExecutionStatus, OutputType } from "@trestle/proto";
import { createGrpcTransport } from "@trestle/transport-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BridgeDependencies,
  callEvents,
  createCodeExecutionBridge,
  createEventHub,
  createInvokerBridge,
  type EventHub,
  interceptTransports,
  scrubSecrets,
} from "../src/index.js";
import { createListResolver, textOf } from "./harness.js";

const API_KEY = "canary-grpc-apikey-6d2f91";
const AUTH = "canary-grpc-auth-0b7c44";

let home: string;
let server: CapabilityServer;
let target: ServiceTarget;
let transports: TransportSelector;
let hub: EventHub;
let deps: BridgeDependencies;
let releaseEngine: () => void = () => undefined;
const engineFinished: string[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "trestle-bridge-"));
  const engineGate = new Promise<void>((resolve) => {
    releaseEngine = resolve;
  });
  server = createCapabilityServer({
    provisioner: createFileProvisioner({
      home,
      properties: { units: { type: "string", description: "metric or imperial", required: true } },
    }),
    async toolInvoker(request) {
      const configuration = await readProvisionedConfiguration(request.configurationUri);
      const secrets = await readProvisionedConfiguration(request.secretsUri);
      if (request.uri === "weather://leak") {
        // A careless service that puts everything it knows into its error.
        throw new TrestleError(
          `upstream refused the credentials ${request.headers["X-Upstream-Auth"]}`,
          Code.PermissionDenied,
        );
      }
      return {
        content: [
          `forecast for ${request.arguments.city} in ${configuration.units}`,
          `authenticated: ${secrets.apiKey === API_KEY && request.headers["X-Upstream-Auth"] === AUTH}`,
        ],
      };
    },
    async *codeExecutor(_request, context) {
      try {
        yield { content: ["first\n"], outputType: OutputType.STDOUT, status: ExecutionStatus.RUNNING };
        const cancelled = new Promise<void>((resolve) =>
          context.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        await Promise.race([engineGate, cancelled]);
        if (context.signal.aborted) return;
        yield { content: ["second\n"], outputType: OutputType.STDOUT, status: ExecutionStatus.RUNNING };
        yield {
          content: [],
          outputType: OutputType.COMPLETION,
          status: ExecutionStatus.COMPLETED,
          exitCode: 0,
        };
      } finally {
        engineFinished.push(context.signal.aborted ? "aborted" : "finished");
      }
    },
  });
  const { host, port } = await server.listen();
  target = {
    id: "weather-1",
    serviceName: "weather",
    host,
    port,
    serviceType: "multi-capability",
    serviceSubType: "kit",
    languageName: "python",
  };
  transports = createTransportSelector({ byProtocol: { grpc: createGrpcTransport() } });
  hub = createEventHub();
  const resolver = createListResolver([target, { ...target, serviceType: "code-execution-engine" }]);
  // As the router composes them: events outermost, then the scrubbing.
  const intercepted = interceptTransports(transports, [callEvents({ sink: hub }), scrubSecrets()]);
  deps = { resolver, transports: intercepted, events: hub };
});

afterAll(async () => {
  releaseEngine();
  await transports?.close();
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

const forecast: ToolReference = {
  name: "forecast",
  type: "weather",
  uri: "weather://forecast",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe("over the gRPC transport, against a capability server", () => {
  it("provisions a tool, then calls it with the provisioned configuration and secrets", async () => {
    const bridge = createInvokerBridge(deps);
    const provisioned = await bridge.provision({
      payload: forecast,
      configurationData: "units=metric\n",
      secretsData: `apiKey=${API_KEY}\n`,
    });
    expect(provisioned.configurationURI).toMatch(/^file:\/\//);
    expect(provisioned.secretsURI).toMatch(/^file:\/\//);
    expect(provisioned.inputSchema?.properties?.units).toEqual({
      type: "string",
      description: "metric or imperial",
    });
    expect(provisioned.inputSchema?.required).toEqual(["city", "units"]);
    const secretsFile = fileURLToPath(provisioned.secretsURI ?? "");
    expect(await readFile(secretsFile, "utf8")).toBe(`apiKey=${API_KEY}\n`);
    expect((await stat(secretsFile)).mode & 0o777).toBe(0o600);

    const result = await bridge.execute(
      { city: "Oslo", units: "metric", "wanaku_auth_X-Upstream-Auth": AUTH },
      provisioned,
      { requestId: "41" },
    );
    expect(result).toEqual({
      content: [
        { type: "text", text: "forecast for Oslo in metric" },
        { type: "text", text: "authenticated: true" },
      ],
    });
    const events = hub.history({ toolName: "forecast" });
    expect(events.map((e) => e.type)).toEqual(["started", "completed"]);
    expect(events[0]).toMatchObject({
      serviceId: "weather-1",
      serviceAddress: `${target.host}:${target.port}`,
      requestId: "41",
      headers: { "X-Upstream-Auth": "[REDACTED]" },
      secretsURI: "[REDACTED]",
    });
  });

  it("returns a service's error as a tool error, scrubbed of the secrets the call carried", async () => {
    const bridge = createInvokerBridge(deps);
    const provisioned = await bridge.provision({
      payload: { ...forecast, name: "leaky", uri: "weather://leak" },
      secretsData: `apiKey=${API_KEY}\n`,
    });
    const result = await bridge.execute(
      { city: "Oslo", units: "metric", "wanaku_auth_X-Upstream-Auth": AUTH },
      provisioned,
    );
    expect(result.isError).toBe(true);
    expect(textOf(result.content[0])).toMatch(
      /^The capability service 'weather' at .* refused the call to tool 'leaky'/,
    );
    const everything = JSON.stringify({ result, events: hub.history() });
    expect(everything).not.toContain(AUTH);
    expect(hub.history({ toolName: "leaky", type: "failed" })[0]).toMatchObject({
      errorCategory: "execution_error",
    });
  });

  it("names the service when nothing listens at its address", async () => {
    const dead = createInvokerBridge({
      ...deps,
      resolver: createListResolver([{ ...target, id: "dead", port: 1 }]),
    });
    const result = await dead.execute({ city: "Oslo" }, forecast);
    expect(result.isError).toBe(true);
    expect(textOf(result.content[0])).toMatch(
      /^The capability service 'weather' at 127\.0\.0\.1:1 is unavailable/,
    );
  });

  it("streams code execution replies as produced and ends the call once when the consumer stops", async () => {
    const engines = createCodeExecutionBridge(deps);
    const seen: string[] = [];
    for await (const output of engines.execute("kit", "python", { code: "print(1)" }, { toolName: "run" })) {
      seen.push(output.type === "output" ? output.text : "");
      break;
    }
    expect(seen).toEqual(["first\n"]);
    const events = hub.history({ toolName: "run" });
    expect(events.map((e) => e.type)).toEqual(["started", "failed"]);
    expect(events[1]).toMatchObject({ errorCategory: "none" });
    await expect.poll(() => engineFinished).toEqual(["aborted"]);
  });
});
