import * as http2 from "node:http2";
import { create, fromBinary, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import { ToolInvokeReplySchema, ToolInvokeRequestSchema } from "@trestle/proto";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, describe, expect, it } from "vitest";
import { isGrpcProtobuf } from "../src/http2-stream-router.js";
import { type CapabilityServer, createCapabilityServer } from "../src/index.js";
import { grpcFrame as frame } from "./support/grpc-frame.js";

const PATH = "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool";

function unframe(body: Buffer): Buffer {
  return body.subarray(5, 5 + body.readUInt32BE(1));
}

interface Answer {
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  trailers: http2.IncomingHttpHeaders;
}

/** Sends one POST on the session and collects the whole answer. */
function post(session: http2.ClientHttp2Session, contentType: string, body: Uint8Array): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": PATH,
      "content-type": contentType,
      te: "trailers",
      "x-wanaku-request-id": contentType,
    });
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => {
      headers = h;
    });
    stream.on("trailers", (t) => {
      trailers = t;
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve({ headers, body: Buffer.concat(chunks), trailers }));
    stream.on("error", reject);
    stream.end(body);
  });
}

describe("gRPC in protobuf through the lean gRPC server, everything else through connect-node, on one port", () => {
  let server: CapabilityServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(): Promise<string> {
    server = createCapabilityServer(createWanakuReferenceCapability().handlers);
    const { host, port } = await server.listen();
    return `http://${host}:${port}`;
  }

  it.each([
    ["application/grpc", true],
    ["application/grpc+proto", true],
    ["application/grpc; charset=utf-8", true],
    ["application/grpc+proto;x=1", true],
    ["application/grpc+json", false],
    ["application/grpc-web", false],
    ["application/grpc-web+proto", false],
    ["application/grpcx", false],
    ["application/proto", false],
    ["application/json", false],
    [undefined, false],
  ])("sends content type %s to the lean gRPC server: %s", (contentType, expected) => {
    expect(isGrpcProtobuf(contentType)).toBe(expected);
  });

  it("serves gRPC, gRPC-Web, Connect and gRPC with JSON side by side on one HTTP/2 connection", async () => {
    const session = http2.connect(await start());
    try {
      const request = create(ToolInvokeRequestSchema, { uri: "echo://split", body: "hi" });
      const binary = toBinary(ToolInvokeRequestSchema, request);
      const json = Buffer.from(JSON.stringify(toJson(ToolInvokeRequestSchema, request)));
      const [grpcPlain, grpcProto, connect, grpcWeb, grpcJson] = await Promise.all([
        post(session, "application/grpc", frame(binary)),
        post(session, "application/grpc+proto", frame(binary)),
        post(session, "application/proto", binary),
        post(session, "application/grpc-web+proto", frame(binary)),
        post(session, "application/grpc+json", frame(json)),
      ]);
      const replies = [
        fromBinary(ToolInvokeReplySchema, unframe(grpcPlain.body)),
        fromBinary(ToolInvokeReplySchema, unframe(grpcProto.body)),
        fromBinary(ToolInvokeReplySchema, connect.body),
        fromBinary(ToolInvokeReplySchema, unframe(grpcWeb.body)),
        fromJson(ToolInvokeReplySchema, JSON.parse(unframe(grpcJson.body).toString("utf8"))),
      ];
      const seen = replies.map((reply) => JSON.parse(reply.content[0] ?? "{}"));
      expect(seen.map((s) => s.contextRequestId)).toEqual([
        "application/grpc",
        "application/grpc+proto",
        "application/proto",
        "application/grpc-web+proto",
        "application/grpc+json",
      ]);
      for (const s of seen) expect(s).toMatchObject({ uri: "echo://split", body: "hi" });
      expect(grpcPlain.trailers["grpc-status"]).toBe("0");
      expect(grpcJson.trailers["grpc-status"]).toBe("0");
      // The two gRPC-in-protobuf streams were answered by the lean gRPC server (connect-node would echo
      // `application/grpc+proto` and does not offer deflate), gRPC with JSON by connect-node.
      for (const answer of [grpcPlain, grpcProto]) {
        expect(answer.headers["content-type"]).toBe("application/grpc");
        expect(answer.headers["grpc-accept-encoding"]).toBe("identity,deflate,gzip");
      }
      expect(grpcJson.headers["content-type"]).toBe("application/grpc+json");
    } finally {
      session.close();
    }
  });
});
