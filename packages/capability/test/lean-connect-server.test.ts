import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Code as TrestleCode, TrestleError } from "@trestle/core";
import { ToolInvoker } from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import { type CapabilityServer, type CapabilityServerOptions, createCapabilityServer } from "../src/index.js";

/** What the handler saw of each call. */
interface Seen {
  requestId: string;
  metadata: Record<string, string>;
  abortReason?: unknown;
}

async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

/**
 * A connect-es client against the capability server's lean Connect unary path (that it is this path and not
 * connect-node that answers is `lazy-modules.test.ts`'s: connect-node is never loaded).
 */
describe("Connect unary in protobuf over HTTP/2, served on the streams (a connect-es client)", () => {
  let server: CapabilityServer | undefined;
  let seen: Seen[] = [];

  afterEach(async () => {
    await server?.close();
    server = undefined;
    seen = [];
  });

  async function start(options: Partial<CapabilityServerOptions> = {}): Promise<string> {
    server = createCapabilityServer({
      async toolInvoker(request, context) {
        const entry: Seen = { requestId: context.requestId, metadata: { ...context.metadata } };
        seen.push(entry);
        if (request.uri === "missing") throw new TrestleError("no tool called missing", TrestleCode.NotFound);
        if (request.uri === "denied") {
          throw new ConnectError("not for you", Code.PermissionDenied, { "x-why": "policy" });
        }
        if (request.uri === "slow") {
          await new Promise<void>((resolve) =>
            context.signal.addEventListener("abort", () => {
              entry.abortReason = context.signal.reason;
              resolve();
            }),
          );
        }
        return { content: [`hello ${request.body}`] };
      },
      ...options,
    });
    const { host, port } = await server.listen();
    return `http://${host}:${port}`;
  }

  const client = (baseUrl: string) =>
    createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true }));

  it("answers with the reply, and the handler sees the request id and metadata but no framing headers", async () => {
    const reply = await client(await start()).invokeTool(
      { uri: "u", body: "ada" },
      { headers: { "x-wanaku-request-id": "r-7", "x-trace": "t" }, timeoutMs: 5_000 },
    );
    expect(reply.content).toEqual(["hello ada"]);
    expect(seen[0]?.requestId).toBe("r-7");
    expect(seen[0]?.metadata["x-trace"]).toBe("t");
    expect(Object.keys(seen[0]?.metadata ?? {}).filter((k) => /^(connect-|content-|:)/.test(k))).toEqual([]);
  });

  it("answers a handler's failure with its Connect code and message", async () => {
    const error = await failure(client(await start()).invokeTool({ uri: "missing" }));
    expect(error.code).toBe(Code.NotFound);
    expect(error.rawMessage).toBe("no tool called missing");
  });

  it("answers a thrown ConnectError with its code, message and metadata as headers", async () => {
    const error = await failure(client(await start()).invokeTool({ uri: "denied" }));
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe("not for you");
    expect(error.metadata.get("x-why")).toBe("policy");
  });

  it("applies connect-timeout-ms: the caller gets DEADLINE_EXCEEDED and the handler's signal aborts", async () => {
    const error = await failure(client(await start()).invokeTool({ uri: "slow" }, { timeoutMs: 150 }));
    expect(error.code).toBe(Code.DeadlineExceeded);
    await expect.poll(() => seen[0]?.abortReason).toBeDefined();
  });

  it("refuses a call without the call secret before the handler runs", async () => {
    const baseUrl = await start({ callSecret: "s3cret" });
    const error = await failure(client(baseUrl).invokeTool({ uri: "u" }));
    expect(error.code).toBe(Code.Unauthenticated);
    expect(error.rawMessage).not.toContain("s3cret");
    expect(seen).toEqual([]);
    const reply = await client(baseUrl).invokeTool(
      { uri: "u", body: "ok" },
      { headers: { "x-trestle-capability-secret": "s3cret" } },
    );
    expect(reply.content).toEqual(["hello ok"]);
    expect(seen[0]?.metadata["x-trestle-capability-secret"]).toBeUndefined();
  });

  it("refuses a request message over maxRequestBytes with RESOURCE_EXHAUSTED", async () => {
    const error = await failure(
      client(await start({ maxRequestBytes: 64 })).invokeTool({ uri: "u", body: "x".repeat(200) }),
    );
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(seen).toEqual([]);
  });
});
