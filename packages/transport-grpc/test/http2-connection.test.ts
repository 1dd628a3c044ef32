import type { ClientHttp2Stream } from "node:http2";
import { Code } from "@trestle/core";
import { CancellationController } from "@trestle/core/cancellation";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, describe, expect, it } from "vitest";
import { channelSecurity } from "../src/channel-security.js";
import { connectHttp2, type Http2Connection, http2UnaryCall } from "../src/http2-unary.js";
import type { FramingMethodDefinition } from "../src/service-definition.js";
import { serveWithProtoLoader } from "./support/proto-loader-server.js";

const finished = (stream: ClientHttp2Stream) =>
  new Promise<void>((resolve) => {
    stream.on("data", () => undefined);
    stream.on("error", () => undefined);
    stream.once("close", () => resolve());
  });

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A reference capability served by proto-loader, and the lean client's connection to it; both closed after the test. */
async function serveAndConnect(maxStreamsPerConnection?: number) {
  const server = await serveWithProtoLoader(createWanakuReferenceCapability().handlers);
  cleanups.push(() => server.close());
  const connection = connectHttp2(
    `${server.target.host}:${server.target.port}`,
    channelSecurity(undefined),
    undefined,
    maxStreamsPerConnection,
  );
  cleanups.push(() => connection.close());
  return { server, connection };
}

describe("the lean client's HTTP/2 connection", () => {
  it("moves to a new connection before it runs out of stream ids, letting the old one finish its calls", async () => {
    const { server, connection } = await serveAndConnect(3);
    // Requests to a method the server does not have: each ends with a status, which is all this test needs.
    const request = () =>
      connection.request({
        ":method": "POST",
        ":path": "/none.None/Nothing",
        "content-type": "application/grpc",
      });
    const firstThree = [request(), request(), request()];
    for (const stream of firstThree) stream.end(Buffer.from([0, 0, 0, 0, 0]));
    const fourth = request();
    fourth.end(Buffer.from([0, 0, 0, 0, 0]));
    const statuses: (string | undefined)[] = [];
    for (const stream of [...firstThree, fourth])
      stream.once("response", (headers) => statuses.push(headers["grpc-status"] as string | undefined));
    await Promise.all([...firstThree, fourth].map(finished));
    expect(server.accepted).toBe(2);
    // Every request was answered (UNIMPLEMENTED), none lost with the first connection.
    expect(statuses).toEqual(["12", "12", "12", "12"]);
  });
});

describe("a lean unary call's stream", () => {
  // Node keeps finished streams reachable for a while (V8 promotes them): what the call's listeners hold (its
  // request, its reply, the callers awaiting it) must not stay reachable with them.
  it("carries none of the call's listeners once the call has settled, only a quiet error listener", async () => {
    const { connection } = await serveAndConnect();
    const streams: ClientHttp2Stream[] = [];
    const capturing: Http2Connection = {
      request(headers) {
        const stream = connection.request(headers);
        streams.push(stream);
        return stream;
      },
      close: () => connection.close(),
    };
    const method: FramingMethodDefinition<Buffer, Buffer> = {
      path: "/none.None/Nothing",
      requestStream: false,
      responseStream: false,
      requestSerialize: (value) => value,
      requestDeserialize: (value) => value,
      responseSerialize: (value) => value,
      responseDeserialize: (value) => value,
    };
    const call = http2UnaryCall(method, Buffer.alloc(0), {
      lease: { client: capturing, track: () => undefined, done: () => undefined },
      metadata: {},
      timeoutMs: 10_000,
      cancellation: new CancellationController(),
      limits: { maxReceiveMessageBytes: 4 * 1024 * 1024, maxSendMessageBytes: undefined },
    });
    await expect(call).rejects.toMatchObject({ code: Code.Unimplemented });
    const [stream] = streams;
    if (!stream) throw new Error("the call made no request");
    for (const event of ["response", "trailers", "data", "close"])
      expect(stream.listenerCount(event)).toBe(0);
    expect(stream.listenerCount("error")).toBe(1);
    // The stream's late errors go nowhere, and no uncaught error escapes.
    stream.emit("error", new Error("a late reset"));
  });
});
