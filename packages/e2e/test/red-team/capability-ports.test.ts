import { create, toBinary } from "@bufbuild/protobuf";
import { CodeExecutionRequestSchema } from "@trestle/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMcpSession } from "../reliability/support/mcp-session.js";
import { api, eventually, type RouterProcess, startRouter, stopAll } from "../support/processes.js";
import {
  connectServerStream,
  grpcCall,
  type MetadataRecorder,
  startMetadataRecorder,
} from "./support/capability-ports-wire.js";

/**
 * Red team, capability ports: the built-in services are reachable on their own ports by anything on the machine
 * (another user, a program the exec engine runs, a container sharing the network). Calling the exec engine there
 * skips the router's tokens entirely. Each built-in must listen on loopback only and refuse every call that does
 * not carry the secret the router generated for it at start; and that secret must never reach a capability
 * someone else registered.
 */

const ADMIN = "red-ports-admin-0123456789abcdef";
const MCP = "red-ports-mcp-0123456789abcdef01";
const REGISTER = "red-ports-register-0123456789abc";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What a program the attacker runs prints, so the test can tell that it ran. */
const MARKER = "capability-port-attack-ran";
const EXECUTE_CODE = "/ai.wanaku.codeexecution.v1.CodeExecutor/ExecuteCode";

interface RegisteredService {
  id: string;
  health: string;
  target: { serviceName: string; serviceType: string; host: string; port: number; languageName?: string };
}

function listServices(router: RouterProcess) {
  return api<RegisteredService[]>(router.url, "GET", "/api/v1/capabilities", undefined, bearer(ADMIN));
}

function healthy(router: RouterProcess, name: string) {
  return eventually(
    async () =>
      (await listServices(router)).find((s) => s.target.serviceName === name && s.health === "healthy"),
    30_000,
    `service '${name}' healthy`,
  );
}

describe("red team: capability ports accept only the router", () => {
  let router: RouterProcess;
  let execBaseUrl: string;
  let services: RegisteredService[];

  beforeAll(async () => {
    router = await startRouter(["--builtins"], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: ADMIN, scopes: ["admin"] },
        { name: "client", token: MCP, scopes: ["mcp"] },
        { name: "partner", token: REGISTER, scopes: ["register"] },
      ]),
      // The partner's capability runs on this machine: the operator lets register tokens use loopback.
      TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
    });
    await Promise.all([healthy(router, "http"), healthy(router, "file")]);
    const exec = await eventually(
      async () =>
        (await listServices(router)).find(
          (s) =>
            s.target.serviceType === "code-execution-engine" &&
            s.target.languageName === "javascript" &&
            s.health === "healthy",
        ),
      30_000,
      "the exec built-in healthy",
    );
    execBaseUrl = `http://${exec.target.host}:${exec.target.port}`;
    services = await listServices(router);
  }, 120_000);

  afterAll(async () => {
    await stopAll();
  });

  it("registers every built-in on a loopback address", () => {
    const builtins = services.filter((s) =>
      ["http", "file", "code-execution-engine"].some(
        (n) => s.target.serviceName === n || s.target.serviceType === n,
      ),
    );
    expect(builtins.length).toBeGreaterThanOrEqual(3);
    for (const service of builtins) expect(service.target.host, service.target.serviceName).toBe("127.0.0.1");
  });

  it("refuses a program sent straight to the exec engine's port over Connect", async () => {
    const outcome = await connectServerStream(execBaseUrl, EXECUTE_CODE, {
      uri: "code-execution-engine://trestle/javascript",
      code: `console.log(${JSON.stringify(MARKER)})`,
    });
    expect(JSON.stringify(outcome.messages)).not.toContain(MARKER);
    expect(outcome.error?.code).toBe("unauthenticated");
  });

  it("refuses a program sent straight to the exec engine's port over gRPC, with or without a guessed secret", async () => {
    const request = toBinary(
      CodeExecutionRequestSchema,
      create(CodeExecutionRequestSchema, {
        uri: "code-execution-engine://trestle/javascript",
        code: `console.log(${JSON.stringify(MARKER)})`,
      }),
    );
    const attempts: Record<string, string>[] = [{}, { "x-trestle-capability-secret": "guessed" }];
    for (const headers of attempts) {
      const outcome = await grpcCall(execBaseUrl, EXECUTE_CODE, request, headers);
      expect(Buffer.concat(outcome.frames).toString("utf8")).not.toContain(MARKER);
      expect(outcome.grpcStatus).toBe(16);
      expect(outcome.grpcMessage).not.toContain("guessed");
    }
  });

  it("still runs code through the router, which holds the secret", async () => {
    const session = await openMcpSession(`${router.url}/mcp`, bearer(MCP));
    const result = await session.callTool("execute_code", {
      language: "javascript",
      code: `console.log(${JSON.stringify(MARKER)})`,
    });
    expect(result.text).toContain(MARKER);
  });

  describe("a capability registered by a register token", () => {
    let recorder: MetadataRecorder;

    beforeAll(async () => {
      recorder = await startMetadataRecorder();
      await api(
        router.url,
        "POST",
        "/api/v1/management/discovery",
        { serviceName: "partner-tools", serviceType: "tool-invoker", host: "127.0.0.1", port: recorder.port },
        bearer(REGISTER),
      );
      await api(
        router.url,
        "POST",
        "/api/v1/tools",
        {
          name: "partner-echo",
          description: "A partner's tool",
          uri: "partner://echo",
          type: "partner-tools",
          inputSchema: { type: "object", properties: {} },
        },
        bearer(ADMIN),
      );
      await healthy(router, "partner-tools");
    }, 60_000);

    afterAll(async () => {
      await recorder?.close();
    });

    it("never receives a built-in's secret, on health probes or on tool calls", async () => {
      const session = await openMcpSession(`${router.url}/mcp`, bearer(MCP));
      const result = await session.callTool("partner-echo", {});
      expect(result.text).toContain("recorded");
      const paths = new Set(recorder.requests.map((r) => r.path));
      expect(paths).toContain("/ai.wanaku.health.v1.HealthProbe/GetStatus");
      expect(paths).toContain("/ai.wanaku.tool.v1.ToolInvoker/InvokeTool");
      for (const { path, headers } of recorder.requests) {
        expect(Object.keys(headers), path).not.toContain("x-trestle-capability-secret");
      }
    });
  });
});
