import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { Code as ConnectCode, ConnectError } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { type HandlerContext, Code as TrestleCode, TrestleError } from "@trestle/core";
import {
  CodeExecutionReplySchema,
  CodeExecutionRequestSchema,
  ToolInvokeReplySchema,
  ToolInvokeRequestSchema,
} from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import {
  CAPABILITY_SECRET_METADATA_KEY,
  type CapabilityServer,
  type CapabilityServerOptions,
  createCapabilityServer,
} from "../src/index.js";

const INVOKE = "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool";
const EXECUTE = "/ai.wanaku.codeexecution.v1.CodeExecutor/ExecuteCode";

async function until(check: () => boolean, what: string, withinMs = 10_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const serializer =
  <S extends DescMessage>(schema: S) =>
  (value: MessageShape<S>) =>
    Buffer.from(toBinary(schema, value));
const deserializer =
  <S extends DescMessage>(schema: S) =>
  (bytes: Buffer) =>
    fromBinary(schema, bytes);

/** What a grpc-js unary call ended with: its reply, or its error with status, details and trailers. */
type Outcome =
  | { reply: MessageShape<typeof ToolInvokeReplySchema>; error?: undefined }
  | { reply?: undefined; error: grpc.ServiceError };

describe("the lean gRPC server, called by grpc-js", () => {
  let server: CapabilityServer | undefined;
  const clients: grpc.Client[] = [];

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server?.close();
    server = undefined;
  });

  async function serve(options: CapabilityServerOptions, channelOptions: grpc.ChannelOptions = {}) {
    server = createCapabilityServer(options);
    const { host, port } = await server.listen();
    const client = new grpc.Client(`${host}:${port}`, grpc.credentials.createInsecure(), channelOptions);
    clients.push(client);
    return client;
  }

  function invoke(
    client: grpc.Client,
    request: MessageInitShape<typeof ToolInvokeRequestSchema> = {},
    metadata = new grpc.Metadata(),
    options: grpc.CallOptions = {},
    path = INVOKE,
  ): { outcome: Promise<Outcome>; call: grpc.ClientUnaryCall } {
    let call: grpc.ClientUnaryCall | undefined;
    const outcome = new Promise<Outcome>((resolve) => {
      call = client.makeUnaryRequest(
        path,
        serializer(ToolInvokeRequestSchema),
        deserializer(ToolInvokeReplySchema),
        create(ToolInvokeRequestSchema, request),
        metadata,
        options,
        (error, reply) =>
          resolve(error ? { error } : { reply: reply as MessageShape<typeof ToolInvokeReplySchema> }),
      );
    });
    return { outcome, call: call as grpc.ClientUnaryCall };
  }

  it("answers a unary call with the handler's reply", async () => {
    const client = await serve({ toolInvoker: (request) => ({ content: [`hello ${request.body}`] }) });
    const { outcome } = invoke(client, { body: "world" });
    expect((await outcome).reply?.content).toEqual(["hello world"]);
  });

  it("shows the handler repeated metadata joined with ', ', -bin metadata as base64, and no framing", async () => {
    let seen: HandlerContext | undefined;
    const client = await serve({
      toolInvoker: (_request, context) => {
        seen = { ...context };
        return { content: [] };
      },
    });
    const metadata = new grpc.Metadata();
    metadata.add("x-wanaku-request-id", "req-7");
    metadata.add("x-multi", "a");
    metadata.add("x-multi", "b");
    metadata.add("x-blob-bin", Buffer.from([0, 1]));
    metadata.add("x-blob-bin", Buffer.from([2, 3, 255]));
    expect((await invoke(client, {}, metadata).outcome).error).toBeUndefined();
    expect(seen?.requestId).toBe("req-7");
    expect(seen?.metadata).toMatchObject({
      "x-wanaku-request-id": "req-7",
      "x-multi": "a, b",
      "x-blob-bin": `${Buffer.from([0, 1]).toString("base64")}, ${Buffer.from([2, 3, 255]).toString("base64")}`,
    });
    const keys = Object.keys(seen?.metadata ?? {});
    expect(keys.filter((key) => key.startsWith(":") || key.startsWith("grpc-"))).toEqual([]);
    expect(keys).not.toContain("content-type");
    expect(keys).not.toContain("te");
  });

  it("answers a method without a handler, or an unknown path, UNIMPLEMENTED with grpc-js's words", async () => {
    const client = await serve({ resourceAcquirer: () => ({ content: [] }) });
    const missing = await invoke(client).outcome;
    expect(missing.error?.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(missing.error?.details).toBe(`The server does not implement the method ${INVOKE}`);
    const unknown = await invoke(client, {}, new grpc.Metadata(), {}, "/no.such.Service/Nope").outcome;
    expect(unknown.error?.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(unknown.error?.details).toBe("The server does not implement the method /no.such.Service/Nope");
  });

  it("answers a failure with its code, its message percent-encoded on the wire and read back intact", async () => {
    const message = "Città 100% ✓ — naïve: a/b, c? #1 & 2 = 3";
    const client = await serve({
      toolInvoker() {
        throw new TrestleError(message, TrestleCode.FailedPrecondition);
      },
    });
    const { error } = await invoke(client).outcome;
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(error?.details).toBe(message);
  });

  it("answers anything else thrown INTERNAL with its message", async () => {
    const client = await serve({
      toolInvoker: async () => {
        throw new RangeError("disk on fire");
      },
    });
    const { error } = await invoke(client).outcome;
    expect(error?.code).toBe(grpc.status.INTERNAL);
    expect(error?.details).toBe("disk on fire");
  });

  it("sends a thrown ConnectError's metadata as trailers (text and -bin), trailers-only", async () => {
    const blob = Buffer.from([1, 2, 3, 250]);
    const client = await serve({
      toolInvoker() {
        throw new ConnectError("quota spent", ConnectCode.ResourceExhausted, {
          "x-retry-after": "30",
          "x-detail-bin": blob.toString("base64"),
        });
      },
    });
    const { error } = await invoke(client).outcome;
    expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(error?.details).toBe("quota spent");
    expect(error?.metadata.get("x-retry-after")).toEqual(["30"]);
    expect(error?.metadata.get("x-detail-bin")).toEqual([blob]);
  });

  it("aborts the handler's signal with an AbortError once the call is answered and over, as connect-node does", async () => {
    const signals: AbortSignal[] = [];
    const client = await serve({
      toolInvoker: (_request, context) => {
        signals.push(context.signal);
        return { content: [] };
      },
    });
    expect((await invoke(client).outcome).error).toBeUndefined();
    expect((await invoke(client).outcome).error).toBeUndefined();
    await until(() => signals.every((signal) => signal.aborted), "the handlers' signals to abort");
    const [first, second] = signals.map((signal) => signal.reason as DOMException);
    expect(first).toBeInstanceOf(DOMException);
    expect(first?.name).toBe("AbortError");
    expect(first?.message).toBe("The call has ended");
    // One reason for every call that ends: a call costs no new error.
    expect(second).toBe(first);
  });

  it("aborts the handler's signal with DEADLINE_EXCEEDED when the call's deadline passes", async () => {
    let reason: unknown;
    const client = await serve({
      toolInvoker: (_request, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            reason = context.signal.reason;
            reject(context.signal.reason);
          });
        }),
    });
    const { error } = await invoke(client, {}, new grpc.Metadata(), { deadline: Date.now() + 300 }).outcome;
    expect(error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    await until(() => reason !== undefined, "the handler's signal to abort");
    expect(reason).toBeInstanceOf(ConnectError);
    expect((reason as ConnectError).code).toBe(ConnectCode.DeadlineExceeded);
  });

  it("aborts the handler's signal as cancelled when the client cancels, and serves the next call", async () => {
    let started = false;
    let reason: unknown;
    const client = await serve({
      toolInvoker: (request, context) => {
        if (request.body === "quick") return { content: ["quick"] };
        started = true;
        return new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            reason = context.signal.reason;
            reject(context.signal.reason);
          });
        });
      },
    });
    const { outcome, call } = invoke(client);
    await until(() => started, "the handler to start");
    call.cancel();
    expect((await outcome).error?.code).toBe(grpc.status.CANCELLED);
    await until(() => reason !== undefined, "the handler's signal to abort");
    expect((reason as ConnectError).code).toBe(ConnectCode.Canceled);
    expect((reason as ConnectError).rawMessage).toBe(
      "The caller cancelled the call or its connection closed",
    );
    expect((await invoke(client, { body: "quick" }).outcome).reply?.content).toEqual(["quick"]);
  });

  it.each([
    ["gzip", 2],
    ["deflate", 1],
  ])("reads a request compressed with %s", async (_name, algorithm) => {
    const body = "x".repeat(10_000);
    const client = await serve(
      { toolInvoker: (request) => ({ content: [`${request.body.length}`] }) },
      { "grpc.default_compression_algorithm": algorithm },
    );
    for (let i = 0; i < 3; i++) {
      const { outcome } = invoke(client, { body });
      expect((await outcome).reply?.content).toEqual(["10000"]);
    }
  });

  it("refuses a call without the call secret before its handler runs, and serves one with it", async () => {
    let seen: Record<string, string> | undefined;
    const client = await serve({
      callSecret: "only-the-router",
      toolInvoker: (_request, context) => {
        seen = context.metadata;
        return { content: ["in"] };
      },
    });
    const refused = await invoke(client).outcome;
    expect(refused.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(refused.error?.details).toContain(CAPABILITY_SECRET_METADATA_KEY);
    const wrong = new grpc.Metadata();
    wrong.add(CAPABILITY_SECRET_METADATA_KEY, "guess");
    expect((await invoke(client, {}, wrong).outcome).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    const twice = new grpc.Metadata();
    twice.add(CAPABILITY_SECRET_METADATA_KEY, "only-the-router");
    twice.add(CAPABILITY_SECRET_METADATA_KEY, "only-the-router");
    expect((await invoke(client, {}, twice).outcome).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(seen).toBeUndefined();
    const right = new grpc.Metadata();
    right.add(CAPABILITY_SECRET_METADATA_KEY, "only-the-router");
    expect((await invoke(client, {}, right).outcome).reply?.content).toEqual(["in"]);
    expect(seen).toBeDefined();
    expect(Object.keys(seen ?? {})).not.toContain(CAPABILITY_SECRET_METADATA_KEY);
  });

  describe("server streaming", () => {
    function execute(client: grpc.Client, options: grpc.CallOptions = {}) {
      return client.makeServerStreamRequest(
        EXECUTE,
        serializer(CodeExecutionRequestSchema),
        deserializer(CodeExecutionReplySchema),
        create(CodeExecutionRequestSchema, { code: "run" }),
        new grpc.Metadata(),
        options,
      );
    }

    it("streams every reply in order, then status OK", async () => {
      const client = await serve({
        async *codeExecutor() {
          for (let i = 0; i < 20; i++) yield { content: [`line ${i}`] };
        },
      });
      const lines: string[] = [];
      for await (const reply of execute(client)) lines.push(...(reply as { content: string[] }).content);
      expect(lines).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i}`));
    });

    it("ends with the handler's failure after the replies it yielded", async () => {
      const client = await serve({
        async *codeExecutor() {
          yield { content: ["first"] };
          throw new TrestleError("engine crashed ✗", TrestleCode.Unavailable);
        },
      });
      const lines: string[] = [];
      const error = await (async () => {
        try {
          for await (const reply of execute(client)) lines.push(...(reply as { content: string[] }).content);
        } catch (e) {
          return e as grpc.ServiceError;
        }
        return undefined;
      })();
      expect(lines).toEqual(["first"]);
      expect(error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(error?.details).toBe("engine crashed ✗");
    });

    it("ends the handler's generator and aborts its signal when the client cancels", async () => {
      let finallyRan = false;
      let reason: unknown;
      const client = await serve({
        async *codeExecutor(_request, context) {
          context.signal.addEventListener("abort", () => {
            reason = context.signal.reason;
          });
          try {
            for (let i = 0; ; i++) {
              yield { content: [`tick ${i}`] };
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          } finally {
            finallyRan = true;
          }
        },
      });
      const stream = execute(client);
      stream.on("error", () => undefined);
      await new Promise((resolve) => stream.once("data", resolve));
      stream.cancel();
      await until(() => finallyRan && reason !== undefined, "the generator to end");
      expect((reason as ConnectError).code).toBe(ConnectCode.Canceled);
    });
  });

  describe("close() with calls in flight", () => {
    it("lets a call finish within the grace period", async () => {
      let started = false;
      const client = await serve({
        closeTimeoutMs: 10_000,
        toolInvoker: async () => {
          started = true;
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { content: ["finished"] };
        },
      });
      const { outcome } = invoke(client);
      await until(() => started, "the call to start");
      const closed = server?.close();
      expect((await outcome).reply?.content).toEqual(["finished"]);
      await closed;
    });

    it("cancels calls still running after the grace period with UNAVAILABLE, unary and streaming", async () => {
      let unaryReason: unknown;
      let streamReason: unknown;
      let running = 0;
      const client = await serve({
        closeTimeoutMs: 300,
        toolInvoker: (_request, context) =>
          new Promise(() => {
            running++;
            context.signal.addEventListener("abort", () => {
              unaryReason = context.signal.reason;
            });
          }),
        async *codeExecutor(_request, context) {
          running++;
          context.signal.addEventListener("abort", () => {
            streamReason = context.signal.reason;
          });
          yield { content: ["started"] };
          await new Promise(() => undefined);
        },
      });
      const { outcome } = invoke(client);
      const stream = client.makeServerStreamRequest(
        EXECUTE,
        serializer(CodeExecutionRequestSchema),
        deserializer(CodeExecutionReplySchema),
        create(CodeExecutionRequestSchema, {}),
      );
      const streamEnd = new Promise<grpc.ServiceError | undefined>((resolve) => {
        stream.on("data", () => undefined);
        stream.on("error", (error: grpc.ServiceError) => resolve(error));
        stream.on("end", () => resolve(undefined));
      });
      await until(() => running === 2, "both calls to start");
      await server?.close();
      const unary = await outcome;
      expect(unary.error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(unary.error?.details).toBe("The capability server is shutting down");
      expect((await streamEnd)?.code).toBe(grpc.status.UNAVAILABLE);
      expect((unaryReason as ConnectError).code).toBe(ConnectCode.Unavailable);
      expect((streamReason as ConnectError).code).toBe(ConnectCode.Unavailable);
    });
  });
});
