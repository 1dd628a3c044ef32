import http2, { type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ToolInvoker } from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import { createConnectUnaryServer } from "../src/connect-unary-server.js";

const method = ToolInvoker.method.invokeTool;
const PATH = `/${method.parent.typeName}/${method.name}`;

/** What the spied streams saw. */
interface StreamCounts {
  served: number;
  /** Writes whose completion came after the stream was destroyed (Node then builds an `ERR_STREAM_DESTROYED`). */
  writesCompletedOnDestroyed: number;
  /** `ERR_STREAM_DESTROYED` errors the streams emitted or handed to a write's callback. */
  destroyedErrors: number;
}

/**
 * Wraps a stream's `_write`/`_writev` to see when each write completes: a write that completes on a destroyed stream
 * makes Node 20's Writable build an `ERR_STREAM_DESTROYED` (with its stack) that nobody receives.
 */
function spyOnWrites(stream: ServerHttp2Stream, counts: StreamCounts): void {
  type WriteCallback = (error?: Error | null) => void;
  const watch =
    (callback: WriteCallback): WriteCallback =>
    (error) => {
      if (stream.destroyed) counts.writesCompletedOnDestroyed++;
      if ((error as NodeJS.ErrnoException | null | undefined)?.code === "ERR_STREAM_DESTROYED")
        counts.destroyedErrors++;
      callback(error);
    };
  const write = stream._write.bind(stream);
  stream._write = (chunk, encoding, callback) => write(chunk, encoding, watch(callback));
  const writev = stream._writev?.bind(stream);
  if (writev) stream._writev = (chunks, callback) => writev(chunks, watch(callback));
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "ERR_STREAM_DESTROYED") counts.destroyedErrors++;
  });
}

describe("the lean Connect unary server ends each stream with its answer", () => {
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function start(): Promise<{ session: http2.ClientHttp2Session; counts: StreamCounts }> {
    const counts: StreamCounts = { served: 0, writesCompletedOnDestroyed: 0, destroyedErrors: 0 };
    const serve = createConnectUnaryServer(
      {
        async toolInvoker(request) {
          if (request.uri === "fail") throw new Error("no such tool");
          return { content: [`hello ${request.body}`] };
        },
      },
      { enter: () => () => {} },
      undefined,
      4 * 1024 * 1024,
    );
    const server = http2.createServer();
    server.on("stream", (stream, headers) => {
      spyOnWrites(stream, counts);
      if (serve(stream, headers)) counts.served++;
      else stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    closers.push(async () => {
      session.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return { session, counts };
  }

  /** One call; resolves with the HTTP status and body, or `reset` when `cancel` cancelled it first. */
  function call(
    session: http2.ClientHttp2Session,
    uri: string,
    cancel = false,
  ): Promise<{ status: number; body: Buffer } | "reset"> {
    return new Promise((resolve, reject) => {
      const request = session.request({
        ":method": "POST",
        ":path": PATH,
        "content-type": "application/proto",
        "connect-protocol-version": "1",
        "connect-timeout-ms": "5000",
      });
      let status = 0;
      const chunks: Buffer[] = [];
      request.on("response", (headers) => {
        status = Number(headers[":status"]);
      });
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => resolve({ status, body: Buffer.concat(chunks) }));
      request.on("close", () => resolve("reset"));
      request.on("error", reject);
      request.end(Buffer.from(toBinary(method.input, create(method.input, { uri, body: "ada" }))));
      if (cancel) setImmediate(() => request.close(http2.constants.NGHTTP2_CANCEL));
    });
  }

  it("completes every answer's write before its stream closes, for replies and errors alike", async () => {
    const { session, counts } = await start();
    const calls = Array.from({ length: 200 }, (_, i) => call(session, i % 4 === 0 ? "fail" : "u"));
    const answers = await Promise.all(calls);
    for (const [i, answer] of answers.entries()) {
      if (answer === "reset") throw new Error(`call ${i} was reset`);
      if (i % 4 === 0) {
        expect(answer.status).toBe(500);
        expect(JSON.parse(answer.body.toString())).toEqual({ code: "internal", message: "no such tool" });
      } else {
        expect(answer.status).toBe(200);
        expect(fromBinary(method.output, answer.body).content).toEqual(["hello ada"]);
      }
    }
    expect(counts.served).toBe(200);
    expect(counts.writesCompletedOnDestroyed).toBe(0);
    expect(counts.destroyedErrors).toBe(0);
  });

  it("answers the calls a client leaves alone while it resets others, and writes nothing to a reset stream", async () => {
    const { session, counts } = await start();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(session, "u", i % 3 === 0)));
    for (const [i, answer] of answers.entries()) {
      if (i % 3 === 0) continue;
      expect(answer).not.toBe("reset");
      if (answer !== "reset") expect(fromBinary(method.output, answer.body).content).toEqual(["hello ada"]);
    }
    expect(counts.destroyedErrors).toBe(0);
    // A reset can land while an answer's write is in flight; it must not be every answer's fate.
    expect(counts.writesCompletedOnDestroyed).toBeLessThanOrEqual(
      answers.filter((a) => a === "reset").length,
    );
    // The session still serves a call afterwards.
    const after = await call(session, "u");
    expect(after === "reset" ? after : after.status).toBe(200);
  });
});
