import { once } from "node:events";
import {
  type ClientHttp2Session,
  connect,
  constants,
  createServer,
  type Http2Server,
  type ServerHttp2Stream,
} from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { CodeExecutionRequestSchema, OutputType, ToolInvokeRequestSchema } from "@trestle/proto";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { afterEach, describe, expect, it } from "vitest";
import type { InFlightCalls } from "../src/capability-routes.js";
import { createGrpcServer } from "../src/grpc-server.js";
import { grpcFrame } from "./support/grpc-frame.js";

const INVOKE = "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool";
const EXECUTE = "/ai.wanaku.codeexecution.v1.CodeExecutor/ExecuteCode";
/** The events the lean server listens to on a call's stream, besides `close` and `error`. */
const EVENTS = ["data", "end", "wantTrailers", "drain"] as const;

type ListenerCounts = Record<(typeof EVENTS)[number], number>;

/**
 * How many listeners each event has that are not methods of the stream itself: Node's own are (`respond` adds
 * the stream's `[kMaybeDestroy]` to `end`), the server's are closures.
 */
function listenerCounts(stream: ServerHttp2Stream): ListenerCounts {
  const methods = new Set<unknown>();
  for (let owner: object | null = stream; owner; owner = Object.getPrototypeOf(owner)) {
    for (const key of Reflect.ownKeys(owner)) {
      const value = Object.getOwnPropertyDescriptor(owner, key)?.value;
      if (typeof value === "function") methods.add(value);
    }
  }
  return Object.fromEntries(
    EVENTS.map((event) => [
      event,
      stream.listeners(event).filter((listener) => !methods.has(listener)).length,
    ]),
  ) as ListenerCounts;
}

const NONE: ListenerCounts = { data: 0, end: 0, wantTrailers: 0, drain: 0 };

const noCallsTracked: InFlightCalls = { enter: () => () => undefined };

/**
 * Node's HTTP/2 session can keep a closed stream reachable until a full collection (its stream map's replaced
 * hash tables); the server takes its listeners off, so such a stream keeps only itself, not the call.
 */
describe("the lean gRPC server's listeners on a call's stream", () => {
  let server: Http2Server | undefined;
  let session: ClientHttp2Session | undefined;

  afterEach(async () => {
    session?.close();
    session = undefined;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /**
   * Serves `handlers` on a plain HTTP/2 server; each stream's listener counts are taken once the call has started
   * and again once the stream has closed.
   */
  async function serve(handlers: CapabilityHandlers) {
    const serveGrpc = createGrpcServer(handlers, noCallsTracked, undefined, 1 << 20);
    const closed: { during: ListenerCounts; after: ListenerCounts }[] = [];
    server = createServer();
    server.on("stream", (stream, headers) => {
      serveGrpc(stream, headers);
      const during = listenerCounts(stream);
      stream.once("close", () => setImmediate(() => closed.push({ during, after: listenerCounts(stream) })));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    session = connect(`http://127.0.0.1:${port}`);
    const open = session;
    const request = (path: string) =>
      open.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
      });
    const closedCount = async (count: number) => {
      const end = Date.now() + 5_000;
      while (closed.length < count) {
        if (Date.now() > end) throw new Error(`only ${closed.length} of ${count} streams closed`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return closed;
    };
    return { request, closedCount };
  }

  /** Sends one request message and reads the reply to its end: the gRPC status it carried. */
  async function call(
    request: (path: string) => ReturnType<ClientHttp2Session["request"]>,
    path: string,
    message: Uint8Array,
  ) {
    const stream = request(path);
    let status: string | undefined;
    stream.on("response", (headers) => {
      status ??= headers["grpc-status"] as string | undefined;
    });
    stream.on("trailers", (trailers) => {
      status = trailers["grpc-status"] as string | undefined;
    });
    stream.resume();
    stream.end(grpcFrame(message));
    await once(stream, "close");
    return status;
  }

  it("takes them off when a unary call has answered", async () => {
    const { request, closedCount } = await serve({
      toolInvoker: (invocation) => ({ content: [invocation.arguments.text ?? ""] }),
    });
    const message = toBinary(
      ToolInvokeRequestSchema,
      create(ToolInvokeRequestSchema, { uri: "echo://", arguments: { text: "hi" } }),
    );
    expect(await call(request, INVOKE, message)).toBe("0");
    const [stream] = await closedCount(1);
    expect(stream?.after).toEqual(NONE);
  });

  it("takes them off when the handler fails", async () => {
    const { request, closedCount } = await serve({
      toolInvoker: () => {
        throw new Error("no");
      },
    });
    expect(await call(request, INVOKE, new Uint8Array())).toBe("13");
    const [stream] = await closedCount(1);
    expect(stream?.after).toEqual(NONE);
  });

  it("takes them off when the client cancels before the request's end", async () => {
    const { request, closedCount } = await serve({ toolInvoker: () => ({ content: [] }) });
    const stream = request(INVOKE);
    stream.resume();
    // Half a frame header, then a reset: the server's stream closes with the body's end never reached.
    stream.write(Buffer.from([0, 0, 0]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    stream.close(constants.NGHTTP2_CANCEL);
    const [closed] = await closedCount(1);
    expect(closed?.during).toEqual({ ...NONE, data: 1, end: 1 });
    expect(closed?.after).toEqual(NONE);
  });

  it("takes them off when a stream of replies has finished", async () => {
    const { request, closedCount } = await serve({
      async *codeExecutor() {
        yield { outputType: OutputType.STDOUT, content: ["one"] };
        yield { outputType: OutputType.STDOUT, content: ["two"] };
      },
    });
    const message = toBinary(CodeExecutionRequestSchema, create(CodeExecutionRequestSchema, { code: "x" }));
    expect(await call(request, EXECUTE, message)).toBe("0");
    const [stream] = await closedCount(1);
    expect(stream?.after).toEqual(NONE);
  });

  it("takes them off when the client cancels a stream of replies waiting for it to read", async () => {
    let waiting = false;
    const { request, closedCount } = await serve({
      async *codeExecutor(_request, context) {
        const chunk = "x".repeat(64 * 1024);
        while (!context.signal.aborted) {
          waiting = true;
          yield { outputType: OutputType.STDOUT, content: [chunk] };
        }
      },
    });
    const stream = request(EXECUTE);
    // Never read: the server's writes fill the flow-control window and it waits for `drain`.
    stream.pause();
    stream.end(
      grpcFrame(toBinary(CodeExecutionRequestSchema, create(CodeExecutionRequestSchema, { code: "x" }))),
    );
    const end = Date.now() + 5_000;
    while (!waiting && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    stream.close(constants.NGHTTP2_CANCEL);
    const [closed] = await closedCount(1);
    expect(closed?.after).toEqual(NONE);
  });
});
