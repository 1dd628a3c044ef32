import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code as ConnectCode, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import {
  HealthProbe,
  ResourceRequestSchema,
  RuntimeStatus,
  ToolInvokeRequestSchema,
  ToolInvoker,
} from "@trestle/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createConnectWanakuTransport } from "../src/index.js";

/**
 * The lean Connect unary client against connect-node's own server (not the capability SDK, which has a lean path
 * of its own): the wire must be the Connect protocol that any Connect server speaks.
 */
describe("connect transport against a connect-node server", () => {
  let server: http2.Http2Server;
  let target: ServiceTarget;
  let seen: { headers: Record<string, string>; contentType: string | null; aborted?: unknown }[];
  const transport = () => createConnectWanakuTransport();
  let open: ReturnType<typeof transport> | undefined;

  beforeEach(async () => {
    seen = [];
    const routes = (router: ConnectRouter) => {
      router.service(ToolInvoker, {
        async invokeTool(request, context) {
          const headers: Record<string, string> = {};
          context.requestHeader.forEach((value, key) => {
            headers[key] = value;
          });
          const entry: (typeof seen)[number] = {
            headers,
            contentType: context.requestHeader.get("content-type"),
          };
          seen.push(entry);
          if (request.uri === "missing")
            throw new ConnectError("no such tool: missing", ConnectCode.NotFound);
          if (request.uri === "slow") {
            await new Promise<void>((resolve) => {
              context.signal.addEventListener("abort", () => {
                entry.aborted = context.signal.reason;
                resolve();
              });
            });
            return { content: [] };
          }
          return { content: [`echo ${request.uri}`, request.arguments.text ?? ""] };
        },
      });
      router.service(HealthProbe, { getStatus: () => ({ status: RuntimeStatus.STARTED }) });
    };
    server = http2.createServer(connectNodeAdapter({ routes }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    target = { id: "cn", serviceName: "cn", host: "127.0.0.1", port, serviceType: "multi-capability" };
  });

  afterEach(async () => {
    await open?.close();
    open = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("calls in binary over HTTP/2 with the metadata as headers", async () => {
    open = transport();
    const reply = await open.invokeTool(
      create(ToolInvokeRequestSchema, { uri: "a", arguments: { text: "ünïcode" } }),
      target,
      { requestId: "r-1", metadata: { "X-Trace": " t1 " } },
    );
    expect(reply.content).toEqual(["echo a", "ünïcode"]);
    expect(seen[0]?.contentType).toBe("application/proto");
    expect(seen[0]?.headers["connect-protocol-version"]).toBe("1");
    expect(seen[0]?.headers["x-trace"]).toBe("t1");
    expect(seen[0]?.headers["x-wanaku-request-id"]).toBe("r-1");
    expect(await open.probeHealth(target)).toMatchObject({ state: "healthy" });
  });

  it("maps the server's Connect error to a TrestleError with its code and message", async () => {
    open = transport();
    const error = await open.invokeTool(create(ToolInvokeRequestSchema, { uri: "missing" }), target).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.NotFound);
    expect((error as TrestleError).rawMessage).toBe("no such tool: missing");
  });

  it("sends its deadline, which the server sees pass, and fails with DeadlineExceeded", async () => {
    open = transport();
    const error = await open
      .invokeTool(create(ToolInvokeRequestSchema, { uri: "slow" }), target, { timeoutMs: 150 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((error as TrestleError).code).toBe(Code.DeadlineExceeded);
    expect(Number(seen[0]?.headers["connect-timeout-ms"])).toBeLessThanOrEqual(150);
    await expect.poll(() => seen[0]?.aborted).toBeDefined();
  });

  it("cancels with the caller's signal, and the server sees the call end", async () => {
    open = transport();
    const controller = new AbortController();
    const call = open.invokeTool(create(ToolInvokeRequestSchema, { uri: "slow" }), target, {
      signal: controller.signal,
    });
    await expect.poll(() => seen.length).toBe(1);
    controller.abort();
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as TrestleError).code).toBe(Code.Canceled);
    await expect.poll(() => seen[0]?.aborted).toBeDefined();
  });

  it("answers UNIMPLEMENTED for a method the server does not serve", async () => {
    open = transport();
    const error = await open.acquireResource(create(ResourceRequestSchema, { location: "x" }), target).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as TrestleError).code).toBe(Code.Unimplemented);
  });
});
