import type { ClientHttp2Stream } from "node:http2";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, describe, expect, it } from "vitest";
import { channelSecurity } from "../src/channel-security.js";
import { connectHttp2 } from "../src/http2-unary.js";
import { serveWithProtoLoader } from "./support/proto-loader-server.js";

const finished = (stream: ClientHttp2Stream) =>
  new Promise<void>((resolve) => {
    stream.on("data", () => undefined);
    stream.on("error", () => undefined);
    stream.once("close", () => resolve());
  });

describe("the lean client's HTTP/2 connection", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("moves to a new connection before it runs out of stream ids, letting the old one finish its calls", async () => {
    const server = await serveWithProtoLoader(createWanakuReferenceCapability().handlers);
    cleanups.push(() => server.close());
    const address = `${server.target.host}:${server.target.port}`;
    const connection = connectHttp2(address, channelSecurity(undefined), undefined, 3);
    cleanups.push(() => connection.close());
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
