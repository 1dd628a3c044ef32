import { create } from "@bufbuild/protobuf";
import {
  CAPABILITY_SECRET_METADATA_KEY,
  type CapabilityServer,
  createCapabilityServer,
} from "@trestle/capability";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import {
  CodeExecutionReplySchema,
  ExecutionStatus,
  HealthProbeReplySchema,
  OutputType,
  RuntimeStatus,
  ToolInvokeReplySchema,
} from "@trestle/proto";
import { createConnectTransport } from "@trestle/transport-connect";
import { createGrpcTransport } from "@trestle/transport-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinCallSecrets, registeredServiceName } from "../src/builtin-secrets.js";
import {
  capabilitySecretResolver,
  isLoopbackHost,
  withCapabilitySecrets,
} from "../src/capability-secrets.js";

function target(serviceName: string, host = "127.0.0.1", port = 1): ServiceTarget {
  return { id: `${serviceName}-${host}-${port}`, serviceName, host, port, serviceType: "multi-capability" };
}

describe("which secret goes to which capability", () => {
  const secretFor = capabilitySecretResolver({
    configured: { weather: "weather-secret" },
    builtin: { http: "http-secret", trestle: "exec-secret" },
  });

  it("sends a configured secret to its service only, wherever it runs", () => {
    expect(secretFor(target("weather", "weather.internal"))).toBe("weather-secret");
    expect(secretFor(target("stocks", "127.0.0.1"))).toBeUndefined();
  });

  it("sends a built-in's secret only to that service name on loopback", () => {
    expect(secretFor(target("http"))).toBe("http-secret");
    expect(secretFor(target("trestle", "::1"))).toBe("exec-secret");
    // Registered elsewhere under a built-in's name: someone else's process, not the built-in.
    expect(secretFor(target("http", "10.0.0.7"))).toBeUndefined();
    expect(secretFor(target("trestle", "attacker.example"))).toBeUndefined();
    // Another service on loopback: never a built-in's secret.
    expect(secretFor(target("file-like"))).toBeUndefined();
  });

  it("sends a configured secret only to targets allowed to receive it", () => {
    const owned = capabilitySecretResolver({
      configured: { weather: "weather-secret" },
      builtin: { http: "http-secret" },
      mayReceiveConfigured: (t) => t.host !== "intruder.example",
    });
    expect(owned(target("weather", "weather.internal"))).toBe("weather-secret");
    expect(owned(target("weather", "intruder.example"))).toBeUndefined();
    // A built-in's own secret follows its own rule (its name, on loopback).
    expect(owned(target("http"))).toBe("http-secret");
  });

  it("has no default that every service would get", () => {
    expect(capabilitySecretResolver({})(target("http"))).toBeUndefined();
  });

  it.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["[::1]", true],
    ["localhost", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["10.0.0.1", false],
    ["127.0.0.1.example.com", false],
    ["my-host", false],
  ])("counts %s as loopback: %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

/** A transport that answers nothing useful and keeps, per call, the target and the metadata it was given. */
function recordingTransport() {
  const seen: { method: string; service: string; metadata: Record<string, string> | undefined }[] = [];
  const note = (method: string, t: ServiceTarget, options: CallOptions | undefined) =>
    seen.push({ method, service: t.serviceName, metadata: options?.metadata });
  const transport: BridgeTransport = {
    async provision(_p, t, o) {
      note("provision", t, o);
      return { configurationUri: "", secretsUri: "", properties: {} };
    },
    async callTool(_c, t, o) {
      note("callTool", t, o);
      return { content: [] };
    },
    async readResource(_r, t, o) {
      note("readResource", t, o);
      return { contents: [] };
    },
    async getPrompt(_g, t, o) {
      note("getPrompt", t, o);
      return { messages: [] };
    },
    async *executeCode(_r, t, o) {
      note("executeCode", t, o);
      yield { type: "output", stream: "stdout", text: "" };
    },
    async probeHealth(t, o) {
      note("probeHealth", t, o);
      return { state: "healthy" } as never;
    },
    release() {
      seen.push({ method: "release", service: "", metadata: undefined });
    },
    async close() {},
  };
  return { transport, seen };
}

async function everyCall(transport: BridgeTransport, t: ServiceTarget, options?: CallOptions) {
  await transport.provision({ name: "p", configurationData: "", secretsData: "" }, t, options);
  await transport.callTool(
    { tool: { name: "t", uri: "t://", type: t.serviceName }, arguments: {} },
    t,
    options,
  );
  await transport.readResource(
    { resource: { name: "r", location: "r://", type: t.serviceName }, uri: "r://" },
    t,
    options,
  );
  await transport.getPrompt?.(
    { prompt: { name: "p", type: t.serviceName }, arguments: {} } as never,
    t,
    options,
  );
  for await (const _ of transport.executeCode({ engineType: "e", language: "l", code: "" }, t, options))
    break;
  await transport.probeHealth(t, options);
}

describe("the capability secret interceptor", () => {
  it("adds the target's secret to every kind of call and nothing to other targets", async () => {
    const { transport, seen } = recordingTransport();
    const wrapped = withCapabilitySecrets(
      transport,
      capabilitySecretResolver({ builtin: { trestle: "exec-secret" } }),
      CAPABILITY_SECRET_METADATA_KEY,
    );
    await everyCall(wrapped, target("trestle"), { metadata: { traceparent: "t-1" } });
    await everyCall(wrapped, target("partner"), { metadata: { traceparent: "t-2" } });
    await everyCall(wrapped, target("partner"));

    const exec = seen.filter((s) => s.service === "trestle");
    expect(exec.map((s) => s.method)).toEqual([
      "provision",
      "callTool",
      "readResource",
      "getPrompt",
      "executeCode",
      "probeHealth",
    ]);
    for (const call of exec) {
      expect(call.metadata).toEqual({ traceparent: "t-1", [CAPABILITY_SECRET_METADATA_KEY]: "exec-secret" });
    }
    for (const call of seen.filter((s) => s.service === "partner")) {
      expect(JSON.stringify(call.metadata ?? {})).not.toContain("exec-secret");
      expect(Object.keys(call.metadata ?? {})).not.toContain(CAPABILITY_SECRET_METADATA_KEY);
    }
    wrapped.release?.(target("trestle"));
    expect(seen.at(-1)?.method).toBe("release");
  });

  it("drops a secret header that came with the call, and replaces it with the target's own", async () => {
    const { transport, seen } = recordingTransport();
    const wrapped = withCapabilitySecrets(
      transport,
      capabilitySecretResolver({ configured: { a: "a-secret" } }),
      CAPABILITY_SECRET_METADATA_KEY,
    );
    const forwarded = { metadata: { "X-Trestle-Capability-Secret": "from-a-client", other: "kept" } };
    const call = { tool: { name: "t", uri: "t://", type: "a" }, arguments: {} };
    await wrapped.callTool(call, target("b"), forwarded);
    await wrapped.callTool(call, target("a"), forwarded);
    expect(seen[0]?.metadata).toEqual({ other: "kept" });
    expect(seen[1]?.metadata).toEqual({ other: "kept", [CAPABILITY_SECRET_METADATA_KEY]: "a-secret" });
  });
});

describe("over the wire, through the gRPC and Connect transports", () => {
  const servers: CapabilityServer[] = [];
  let guarded: ServiceTarget;
  let other: ServiceTarget;

  beforeAll(async () => {
    const start = async (callSecret: string) => {
      // A Wanaku-contract service: it echoes a tool's uri, counts `n` lines of output and says it is started.
      const server = createCapabilityServer({
        healthProbe: () => create(HealthProbeReplySchema, { status: RuntimeStatus.STARTED }),
        toolInvoker: (request) => create(ToolInvokeReplySchema, { content: [`echo ${request.uri}`] }),
        async *codeExecutor(request) {
          for (let i = 0; i < Number(request.arguments.n ?? "3"); i++) {
            yield create(CodeExecutionReplySchema, {
              content: [`line ${i}\n`],
              outputType: OutputType.STDOUT,
            });
          }
          yield create(CodeExecutionReplySchema, {
            outputType: OutputType.COMPLETION,
            status: ExecutionStatus.COMPLETED,
            exitCode: 0,
          });
        },
        callSecret,
      });
      servers.push(server);
      return server.listen();
    };
    const a = await start("exec-secret");
    const b = await start("partner-secret");
    guarded = target("trestle", a.host, a.port);
    other = target("partner", b.host, b.port);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  const transports: [string, () => BridgeTransport][] = [
    ["gRPC", () => createGrpcTransport()],
    ["Connect", () => createConnectTransport()],
    ["gRPC-Web", () => createConnectTransport({ protocol: "grpc-web", httpVersion: "1.1" })],
  ];

  it.each(transports)("%s: each service accepts the router only with its own secret", async (_name, make) => {
    const raw = make();
    const wrapped = withCapabilitySecrets(
      raw,
      capabilitySecretResolver({
        builtin: { trestle: "exec-secret" },
        configured: { partner: "partner-secret" },
      }),
      CAPABILITY_SECRET_METADATA_KEY,
    );
    try {
      const call = {
        tool: { name: "echo", uri: "echo://through-the-router", type: "trestle" },
        arguments: {},
      };
      const reply = JSON.stringify(await wrapped.callTool(call, guarded));
      expect(reply).toContain("echo://through-the-router");
      expect(reply).not.toContain("exec-secret");
      await wrapped.callTool(call, other);
      const lines: string[] = [];
      for await (const output of wrapped.executeCode(
        { engineType: "kit", language: "count", code: "", arguments: { n: "1" } },
        guarded,
      )) {
        if (output.type === "output") lines.push(output.text);
      }
      expect(lines).toEqual(["line 0\n"]);
      expect((await wrapped.probeHealth(guarded)).state).toBe("healthy");

      // The same transport without the decorator: what anyone else reaching the port gets.
      const refused = await raw.callTool(call, guarded).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(TrestleError);
      expect((refused as TrestleError).code).toBe(Code.Unauthenticated);
      expect((await raw.probeHealth(guarded)).state).not.toBe("healthy");
    } finally {
      await wrapped.close();
    }
  });
});

describe("the built-ins' secrets, made at each start", () => {
  const builtins = [
    { name: "http", args: [] as string[] },
    { name: "file", args: ["--root", "/srv"] },
    { name: "exec", args: [] as string[], env: { OTHER: "kept" } },
  ];

  it("gives each built-in its own, in its environment, keyed by the service name it registers under", () => {
    const first = builtinCallSecrets(builtins);
    expect(Object.keys(first.byServiceName).sort()).toEqual(["file", "http", "trestle"]);
    const values = Object.values(first.byServiceName);
    expect(new Set(values).size).toBe(3);
    for (const value of values) expect(value.length).toBeGreaterThanOrEqual(40);
    expect(first.services.map((s) => s.env.TRESTLE_CAPABILITY_SECRET)).toEqual([
      first.byServiceName.http,
      first.byServiceName.file,
      first.byServiceName.trestle,
    ]);
    expect(first.services[2]?.env.OTHER).toBe("kept");
    // Never on the command line, which any user of the machine can read.
    for (const service of first.services) {
      for (const value of values) expect(service.args).not.toContain(value);
    }
    const second = builtinCallSecrets(builtins);
    expect(second.byServiceName.http).not.toBe(first.byServiceName.http);
  });

  it("follows the exec engine's --engine argument", () => {
    expect(registeredServiceName({ name: "exec", args: [] })).toBe("trestle");
    expect(registeredServiceName({ name: "exec", args: ["--engine", "sandbox"] })).toBe("sandbox");
    expect(registeredServiceName({ name: "exec", args: ["--engine=box"] })).toBe("box");
    expect(registeredServiceName({ name: "file", args: ["--engine", "x"] })).toBe("file");
  });
});
