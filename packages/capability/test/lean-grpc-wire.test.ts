import * as http2 from "node:http2";
import { deflateSync, gzipSync } from "node:zlib";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ToolInvokeReplySchema, ToolInvokeRequestSchema } from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import { type CapabilityServer, type CapabilityServerOptions, createCapabilityServer } from "../src/index.js";
import { grpcFrame as frame } from "./support/grpc-frame.js";

const INVOKE = "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool";
const EXECUTE = "/ai.wanaku.codeexecution.v1.CodeExecutor/ExecuteCode";

const REQUEST = toBinary(ToolInvokeRequestSchema, create(ToolInvokeRequestSchema, { body: "wire" }));

interface Answer {
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  /** Undefined for a trailers-only answer. */
  trailers: http2.IncomingHttpHeaders | undefined;
}

async function until(check: () => boolean, what: string, withinMs = 10_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("the lean gRPC server on the wire (node:http2 client)", () => {
  let server: CapabilityServer | undefined;
  let session: http2.ClientHttp2Session | undefined;

  afterEach(async () => {
    session?.close();
    session = undefined;
    await server?.close();
    server = undefined;
  });

  async function serve(options: CapabilityServerOptions): Promise<http2.ClientHttp2Session> {
    server = createCapabilityServer(options);
    const { host, port } = await server.listen();
    session = http2.connect(`http://${host}:${port}`);
    return session;
  }

  function send(
    headers: http2.OutgoingHttpHeaders,
    body: Buffer | undefined,
    path = INVOKE,
  ): { answer: Promise<Answer>; stream: http2.ClientHttp2Stream } {
    const stream = (session as http2.ClientHttp2Session).request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    const answer = new Promise<Answer>((resolve, reject) => {
      let responseHeaders: http2.IncomingHttpHeaders = {};
      let trailers: http2.IncomingHttpHeaders | undefined;
      const chunks: Buffer[] = [];
      stream.on("response", (h) => {
        responseHeaders = h;
      });
      stream.on("trailers", (t) => {
        trailers = t;
      });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("close", () => resolve({ headers: responseHeaders, body: Buffer.concat(chunks), trailers }));
      stream.on("error", reject);
    });
    if (body === undefined) stream.end();
    else stream.end(body);
    return { answer, stream };
  }

  const echo: CapabilityServerOptions = { toolInvoker: (request) => ({ content: [`got ${request.body}`] }) };

  it("answers headers, one framed reply and trailers grpc-status 0", async () => {
    await serve(echo);
    const { headers, body, trailers } = await send({}, frame(REQUEST)).answer;
    expect(headers[":status"]).toBe(200);
    expect(headers["content-type"]).toBe("application/grpc");
    expect(trailers?.["grpc-status"]).toBe("0");
    expect(body[0]).toBe(0);
    expect(body.readUInt32BE(1)).toBe(body.length - 5);
    expect(fromBinary(ToolInvokeReplySchema, body.subarray(5)).content).toEqual(["got wire"]);
  });

  it("answers a failure trailers-only, its message percent-encoded as gRPC requires", async () => {
    await serve({
      toolInvoker() {
        throw new Error("naïve 100% ✓");
      },
    });
    const { headers, body, trailers } = await send({}, frame(REQUEST)).answer;
    expect(trailers).toBeUndefined();
    expect(body.length).toBe(0);
    expect(headers[":status"]).toBe(200);
    expect(headers["grpc-status"]).toBe("13");
    expect(headers["grpc-message"]).toBe("na%C3%AFve 100%25 %E2%9C%93");
  });

  it("answers a thrown object that looks like a status INTERNAL, as any other non-error thrown", async () => {
    await serve({
      toolInvoker() {
        throw { code: 5, message: "not a status" };
      },
    });
    const { headers } = await send({}, frame(REQUEST)).answer;
    expect(headers["grpc-status"]).toBe("13");
    expect(headers["grpc-message"]).toBe("[object Object]");
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
  ])("reads a message compressed with %s", async (encoding, compress) => {
    await serve(echo);
    const { body, trailers } = await send({ "grpc-encoding": encoding }, frame(compress(REQUEST), 1)).answer;
    expect(trailers?.["grpc-status"]).toBe("0");
    expect(fromBinary(ToolInvokeReplySchema, body.subarray(5)).content).toEqual(["got wire"]);
  });

  describe("a request over maxRequestBytes", () => {
    const limited = (onCall: () => void): CapabilityServerOptions => ({
      maxRequestBytes: 1024,
      toolInvoker: () => {
        onCall();
        return { content: [] };
      },
    });
    const statusOf = (answer: Answer) => ({
      code: answer.trailers?.["grpc-status"] ?? answer.headers["grpc-status"],
      message: decodeURIComponent(
        String(answer.trailers?.["grpc-message"] ?? answer.headers["grpc-message"]),
      ),
    });
    const big = toBinary(
      ToolInvokeRequestSchema,
      create(ToolInvokeRequestSchema, { body: "x".repeat(4096) }),
    );

    it("is refused RESOURCE_EXHAUSTED before its handler runs", async () => {
      let called = false;
      await serve(limited(() => (called = true)));
      expect(statusOf(await send({}, frame(big)).answer)).toEqual({
        code: "8",
        message: `Received message larger than max (${big.length} vs. 1024)`,
      });
      expect(called).toBe(false);
    });

    it("is refused when it only grows past the limit once decompressed (a compression bomb)", async () => {
      let called = false;
      await serve({ ...limited(() => (called = true)), maxRequestBytes: 16 * 1024 });
      const bomb = gzipSync(
        toBinary(
          ToolInvokeRequestSchema,
          create(ToolInvokeRequestSchema, { body: "0".repeat(8 * 1024 * 1024) }),
        ),
      );
      expect(bomb.length).toBeLessThan(16 * 1024);
      const answer = await send({ "grpc-encoding": "gzip" }, frame(bomb, 1)).answer;
      expect(statusOf(answer)).toEqual({
        code: "8",
        message: "Received message larger than max (more than 16384 bytes once decompressed)",
      });
      expect(called).toBe(false);
    });

    it("is answered as soon as the limit is crossed, without waiting for (or keeping) the rest", async () => {
      const client = await serve(limited(() => undefined));
      const stream = client.request({
        ":method": "POST",
        ":path": INVOKE,
        "content-type": "application/grpc",
        te: "trailers",
      });
      let headers: http2.IncomingHttpHeaders = {};
      stream.on("response", (h) => {
        headers = h;
      });
      stream.resume();
      const closed = new Promise<number>((resolve) =>
        stream.on("close", () => resolve(stream.rstCode ?? -1)),
      );
      // The frame header declares 1 GiB; the client sends a little of it and then waits, as a slow attacker would.
      const header = Buffer.alloc(5);
      header.writeUInt32BE(2 ** 30, 1);
      stream.write(Buffer.concat([header, Buffer.alloc(2048)]));
      // The server answers and resets the stream with NO_ERROR: the client stops sending, nothing is kept.
      expect(await closed).toBe(http2.constants.NGHTTP2_NO_ERROR);
      expect(headers["grpc-status"]).toBe("8");
      expect(decodeURIComponent(String(headers["grpc-message"]))).toBe(
        `Received message larger than max (${2 ** 30} vs. 1024)`,
      );
    });

    it("over Connect is refused too", async () => {
      await serve(limited(() => undefined));
      const { host, port } = server?.address() ?? { host: "", port: 0 };
      const response = await fetch(`http://${host}:${port}${INVOKE}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ body: "x".repeat(4096) }),
      });
      const answer = (await response.json()) as { code?: string };
      expect(answer.code).toBe("resource_exhausted");
    });
  });

  it.each<[string, http2.OutgoingHttpHeaders, Buffer | undefined, string, string]>([
    [
      "a compressed message in an encoding it does not read",
      { "grpc-encoding": "br" },
      frame(REQUEST, 1),
      "12",
      'Received message compressed with unsupported encoding "br"',
    ],
    [
      "a compressed message without grpc-encoding",
      {},
      frame(REQUEST, 1),
      "13",
      "Received a compressed message without a grpc-encoding header",
    ],
    [
      "a gzip message that does not decompress",
      { "grpc-encoding": "gzip" },
      frame(REQUEST, 1),
      "13",
      "Failed to decompress message",
    ],
    ["no message", {}, undefined, "12", `Received no request message for method ${INVOKE}`],
    [
      "a frame cut short",
      {},
      frame(REQUEST).subarray(0, 7),
      "12",
      `Received no request message for method ${INVOKE}`,
    ],
    [
      "two messages",
      {},
      Buffer.concat([frame(REQUEST), frame(REQUEST)]),
      "12",
      `Received a second request message for method ${INVOKE}`,
    ],
    ["an invalid frame flag", {}, frame(REQUEST, 7), "13", "Invalid gRPC frame flag 7: expected 0 or 1"],
    [
      "bytes that are not the request message",
      {},
      frame(Buffer.from([0xff, 0xff, 0xff])),
      "13",
      "Error deserializing request",
    ],
    [
      "an invalid grpc-timeout",
      { "grpc-timeout": "soon" },
      frame(REQUEST),
      "13",
      'Invalid grpc-timeout value "soon"',
    ],
    ["a GET", { ":method": "GET" }, undefined, "12", "gRPC calls are POST requests; GET is not served"],
  ])("answers %s with a clear status", async (_what, headers, body, code, message) => {
    let called = false;
    await serve({
      toolInvoker: () => {
        called = true;
        return { content: [] };
      },
    });
    const answer = await send(headers, body).answer;
    const status = answer.trailers?.["grpc-status"] ?? answer.headers["grpc-status"];
    const text = answer.trailers?.["grpc-message"] ?? answer.headers["grpc-message"];
    expect(status).toBe(code);
    expect(decodeURIComponent(String(text))).toMatch(
      new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    expect(called).toBe(false);
  });

  it.each([
    ["300m", 300],
    ["1S", 1_000],
    ["300000u", 300],
    ["30000000n", 30],
  ])(
    "ends a call with grpc-timeout %s with DEADLINE_EXCEEDED and aborts the handler's signal",
    async (timeout, ms) => {
      let abortedAfter: number | undefined;
      const started = Date.now();
      await serve({
        toolInvoker: (_request, context) =>
          new Promise(() => {
            context.signal.addEventListener("abort", () => {
              abortedAfter = Date.now() - started;
            });
          }),
      });
      const answer = await send({ "grpc-timeout": timeout }, frame(REQUEST)).answer;
      expect(answer.headers["grpc-status"]).toBe("4");
      expect(answer.headers["grpc-message"]).toBe("Deadline exceeded");
      await until(() => abortedAfter !== undefined, "the handler's signal to abort");
      // Not before the deadline (timers may fire a little late on a loaded machine, never early by much).
      expect(abortedAfter).toBeGreaterThanOrEqual(ms - 20);
    },
  );

  it("takes a reset just before the deadline for the deadline, and one well before it for a cancellation", async () => {
    const reasons: string[] = [];
    await serve({
      toolInvoker: (_request, context) =>
        new Promise(() => {
          context.signal.addEventListener("abort", () => {
            reasons.push((context.signal.reason as { code: number }).code === 4 ? "deadline" : "cancelled");
          });
        }),
    });
    // The client's own deadline timer fires first (it started before the server's): its reset comes just before.
    const late = send({ "grpc-timeout": "400m" }, frame(REQUEST)).stream;
    setTimeout(() => late.close(http2.constants.NGHTTP2_CANCEL), 385);
    await until(() => reasons.length === 1, "the first handler's signal to abort");
    const early = send({ "grpc-timeout": "400m" }, frame(REQUEST)).stream;
    setTimeout(() => early.close(http2.constants.NGHTTP2_CANCEL), 50);
    await until(() => reasons.length === 2, "the second handler's signal to abort");
    expect(reasons).toEqual(["deadline", "cancelled"]);
  });

  it("keeps no timer for a deadline further away than a timer can hold, and answers the call", async () => {
    await serve(echo);
    const { trailers } = await send({ "grpc-timeout": "99999999H" }, frame(REQUEST)).answer;
    expect(trailers?.["grpc-status"]).toBe("0");
  });

  it("holds a stream's engine back while the client does not read, and delivers every reply once it does", async () => {
    const total = 400;
    const chunk = "y".repeat(32 * 1024);
    let produced = 0;
    await serve({
      async *codeExecutor() {
        for (let i = 0; i < total; i++) {
          produced++;
          yield { content: [chunk, `${i}`] };
        }
      },
    });
    const { answer, stream } = send({}, frame(new Uint8Array()), EXECUTE);
    stream.pause();
    let last = -1;
    let stableSince = Date.now();
    await until(() => {
      if (produced !== last) {
        last = produced;
        stableSince = Date.now();
      }
      return produced > 0 && Date.now() - stableSince > 500;
    }, "the engine to be held back");
    expect(produced).toBeLessThan(total / 4);
    stream.resume();
    const { body, trailers } = await answer;
    expect(produced).toBe(total);
    expect(trailers?.["grpc-status"]).toBe("0");
    const seen: string[] = [];
    for (let at = 0; at < body.length; ) {
      const length = body.readUInt32BE(at + 1);
      const reply = fromBinary(ToolInvokeReplySchema, body.subarray(at + 5, at + 5 + length));
      seen.push(reply.content[1] ?? "");
      at += 5 + length;
    }
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => `${i}`));
  });

  it("ends a held-back stream's generator when the client resets the stream", async () => {
    let finallyRan = false;
    let produced = 0;
    await serve({
      async *codeExecutor() {
        try {
          for (;;) {
            produced++;
            yield { content: ["z".repeat(32 * 1024)] };
          }
        } finally {
          finallyRan = true;
        }
      },
    });
    const { answer, stream } = send({}, frame(new Uint8Array()), EXECUTE);
    stream.pause();
    await until(() => produced > 1, "the engine to start");
    stream.close(http2.constants.NGHTTP2_CANCEL);
    await answer.catch(() => undefined);
    await until(() => finallyRan, "the generator to end");
  });
});
