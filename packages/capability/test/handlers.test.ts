import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { type HandlerContext, Code as TrestleCode, TrestleError } from "@trestle/core";
import { CodeExecutor, HealthProbe, Provisioner, ResourceAcquirer, ToolInvoker } from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import { type CapabilityServer, type CapabilityServerOptions, createCapabilityServer } from "../src/index.js";

async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("capability server handlers", () => {
  let server: CapabilityServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(options: CapabilityServerOptions) {
    server = createCapabilityServer(options);
    const { host, port } = await server.listen();
    return createGrpcTransport({ baseUrl: `http://${host}:${port}` });
  }

  it.each([
    [TrestleCode.InvalidArgument, Code.InvalidArgument],
    [TrestleCode.NotFound, Code.NotFound],
    [TrestleCode.FailedPrecondition, Code.FailedPrecondition],
    [TrestleCode.Unavailable, Code.Unavailable],
    [TrestleCode.Unauthenticated, Code.Unauthenticated],
  ])(
    "answers a TrestleError with code %s as the same gRPC status and its raw message",
    async (thrown, status) => {
      const transport = await serve({
        toolInvoker() {
          throw new TrestleError("city is required", thrown);
        },
      });
      const error = await failure(createClient(ToolInvoker, transport).invokeTool({ uri: "x" }));
      expect(error.code).toBe(status);
      expect(error.rawMessage).toBe("city is required");
    },
  );

  it("answers any other exception as INTERNAL with its message", async () => {
    const transport = await serve({
      async resourceAcquirer() {
        throw new RangeError("disk on fire");
      },
      provisioner() {
        throw "a bare string";
      },
    });
    const error = await failure(createClient(ResourceAcquirer, transport).resourceAcquire({ location: "x" }));
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe("disk on fire");
    const bare = await failure(createClient(Provisioner, transport).provision({}));
    expect(bare.code).toBe(Code.Internal);
    expect(bare.rawMessage).toBe("a bare string");
  });

  it("answers UNIMPLEMENTED for every service without a handler", async () => {
    const transport = await serve({ toolInvoker: () => ({ content: ["ok"] }) });
    expect((await createClient(ToolInvoker, transport).invokeTool({})).content).toEqual(["ok"]);
    for (const call of [
      () => createClient(ResourceAcquirer, transport).resourceAcquire({}),
      () => createClient(Provisioner, transport).provision({}),
      () => createClient(HealthProbe, transport).getStatus({}),
      async () => {
        for await (const _ of createClient(CodeExecutor, transport).executeCode({})) {
          // draining: the first read fails
        }
      },
    ]) {
      expect((await failure(call())).code).toBe(Code.Unimplemented);
    }
  });

  it("gives the handler the request id and the caller's metadata, lower-cased, without framing headers", async () => {
    let seen: HandlerContext | undefined;
    const transport = await serve({
      toolInvoker(_request, context) {
        seen = context;
        return { content: [] };
      },
    });
    await createClient(ToolInvoker, transport).invokeTool(
      {},
      { headers: { "X-Wanaku-Request-Id": "req-7", "X-Tenant": "Acme", traceparent: "00-abc-def-01" } },
    );
    expect(seen?.requestId).toBe("req-7");
    expect(seen?.metadata).toMatchObject({
      "x-wanaku-request-id": "req-7",
      "x-tenant": "Acme",
      traceparent: "00-abc-def-01",
    });
    expect(
      Object.keys(seen?.metadata ?? {}).filter((k) => k.startsWith("grpc-") || k === "content-type"),
    ).toEqual([]);
    expect(seen?.signal.aborted).toBe(true); // the call is over
  });

  it("gives the handler the same metadata over gRPC and Connect, a -bin entry as its base64 text", async () => {
    const seen: Record<string, string>[] = [];
    const transport = await serve({
      toolInvoker(_request, context) {
        seen.push({ ...context.metadata });
        return { content: [] };
      },
    });
    const baseUrl = `http://${server?.address()?.host}:${server?.address()?.port}`;
    const headers = { "x-wanaku-request-id": "r-9", "x-tenant": "Acme", "x-trace-bin": "AAEC/w==" };
    await createClient(ToolInvoker, transport).invokeTool({}, { headers });
    await createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "2" })).invokeTool(
      {},
      { headers },
    );
    const [overGrpc, overConnect] = seen;
    expect(overGrpc).toMatchObject(headers);
    // user-agent differs by client: every other entry is the same.
    expect({ ...overGrpc, "user-agent": "" }).toEqual({ ...overConnect, "user-agent": "" });
  });

  it("gives a context whose fields survive a spread", async () => {
    let copy: HandlerContext | undefined;
    const transport = await serve({
      toolInvoker(_request, context) {
        copy = { ...context };
        return { content: [] };
      },
    });
    await createClient(ToolInvoker, transport).invokeTool({}, { headers: { "x-wanaku-request-id": "r-3" } });
    expect(copy?.requestId).toBe("r-3");
    expect(copy?.metadata["x-wanaku-request-id"]).toBe("r-3");
    expect(copy?.signal).toBeInstanceOf(AbortSignal);
  });

  it("answers a ConnectError thrown by a handler with its code, message and metadata", async () => {
    const transport = await serve({
      toolInvoker() {
        throw new ConnectError("quota used up", Code.ResourceExhausted, { "x-retry-after": "30" });
      },
    });
    const baseUrl = `http://${server?.address()?.host}:${server?.address()?.port}`;
    for (const t of [transport, createConnectTransport({ baseUrl, httpVersion: "1.1" })]) {
      const error = await failure(createClient(ToolInvoker, t).invokeTool({}));
      expect(error.code).toBe(Code.ResourceExhausted);
      expect(error.rawMessage).toBe("quota used up");
      expect(error.metadata.get("x-retry-after")).toBe("30");
    }
  });

  it("reads a request larger than grpc-js's default 4 MiB limit, as Connect does", async () => {
    const transport = await serve({ toolInvoker: (request) => ({ content: [String(request.body.length)] }) });
    const body = "b".repeat(5 * 1024 * 1024);
    expect((await createClient(ToolInvoker, transport).invokeTool({ body })).content).toEqual([
      String(body.length),
    ]);
  });

  it("streams many large replies intact and in order", async () => {
    const chunk = "x".repeat(256 * 1024);
    const transport = await serve({
      async *codeExecutor() {
        for (let i = 0; i < 64; i++) yield { content: [`${i}:${chunk}`] };
      },
    });
    let next = 0;
    for await (const reply of createClient(CodeExecutor, transport).executeCode({})) {
      expect(reply.content[0]).toBe(`${next}:${chunk}`);
      next++;
      // A slow reader: the engine must wait for it rather than fail or drop replies.
      if (next % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(next).toBe(64);
  });

  it("gives a request id of '' when none was sent", async () => {
    let requestId: string | undefined;
    const transport = await serve({
      toolInvoker(_request, context) {
        requestId = context.requestId;
        return { content: [] };
      },
    });
    await createClient(ToolInvoker, transport).invokeTool({});
    expect(requestId).toBe("");
  });

  it("aborts the handler's signal when the client cancels, and the call leaves no one waiting", async () => {
    let aborted = false;
    let started = false;
    const transport = await serve({
      toolInvoker(_request, context) {
        started = true;
        return new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            aborted = true;
            reject(context.signal.reason);
          });
        });
      },
    });
    const controller = new AbortController();
    const call = createClient(ToolInvoker, transport).invokeTool({}, { signal: controller.signal });
    await until(() => started, "the handler to start");
    controller.abort();
    expect((await failure(call)).code).toBe(Code.Canceled);
    await until(() => aborted, "the handler's signal to abort");
  });

  it("runs the stream handler's finally when the client stops reading, even if it ignores the signal", async () => {
    let finished = false;
    const transport = await serve({
      async *codeExecutor() {
        try {
          for (let i = 0; ; i++) {
            yield { content: [`tick ${i}`] };
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        } finally {
          finished = true;
        }
      },
    });
    const controller = new AbortController();
    let received = 0;
    const error = await failure(
      (async () => {
        for await (const _ of createClient(CodeExecutor, transport).executeCode(
          {},
          { signal: controller.signal },
        )) {
          if (++received === 3) controller.abort();
        }
      })(),
    );
    expect(error.code).toBe(Code.Canceled);
    await until(() => finished, "the generator's finally");
  });

  it("answers DEADLINE_EXCEEDED when the handler outlives the caller's deadline", async () => {
    const transport = await serve({
      toolInvoker: (_request, context) =>
        new Promise((_resolve, reject) =>
          context.signal.addEventListener("abort", () => reject(context.signal.reason)),
        ),
    });
    const error = await failure(createClient(ToolInvoker, transport).invokeTool({}, { timeoutMs: 100 }));
    expect(error.code).toBe(Code.DeadlineExceeded);
  });
});
