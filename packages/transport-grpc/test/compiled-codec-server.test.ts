import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  ToolInvokeReplySchema,
  type ToolInvokeRequest,
  ToolInvokeRequestSchema,
  ToolInvoker,
} from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import { createGrpcWanakuTransport } from "../src/index.js";
import { grpcServiceDefinition } from "../src/service-definition.js";

/**
 * A grpc-js server built on `grpcServiceDefinition`, so its requests are decoded and its replies encoded by
 * the compiled codecs, called by both clients of the transport (whose side uses the same codecs).
 */
describe("the compiled codecs on both ends of a real gRPC call", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  for (const client of ["http2", "grpc-js"] as const) {
    it(`carries a request with unicode, maps and an empty string, and the reply, over the ${client} client`, async () => {
      const received: ToolInvokeRequest[] = [];
      const server = new grpc.Server();
      server.addService(grpcServiceDefinition(ToolInvoker) as unknown as grpc.ServiceDefinition, {
        invokeTool(
          call: grpc.ServerUnaryCall<ToolInvokeRequest, unknown>,
          callback: grpc.sendUnaryData<unknown>,
        ) {
          received.push(call.request);
          callback(null, create(ToolInvokeReplySchema, { content: [call.request.uri, "Grüße 😀", ""] }));
        },
      });
      const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
          error ? reject(error) : resolve(bound),
        ),
      );
      cleanups.push(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
      const transport = createGrpcWanakuTransport({ client });
      cleanups.push(() => transport.close());
      const target = {
        id: "t",
        serviceName: "codec",
        host: "127.0.0.1",
        port,
        serviceType: "tool-invoker",
      } as const;
      const request = create(ToolInvokeRequestSchema, {
        uri: "tool://天気/予報",
        body: '{"city":"Oslo 😀"}',
        arguments: { city: "Oslo", empty: "", ключ: "значение" },
        headers: { "x-tenant": "acme" },
        requestId: "r-1",
      });
      const reply = await transport.invokeTool(request, target, { timeoutMs: 10_000 });
      expect(reply).toStrictEqual(
        create(ToolInvokeReplySchema, { content: ["tool://天気/予報", "Grüße 😀", ""] }),
      );
      expect(received).toHaveLength(1);
      expect(received[0]).toStrictEqual(request);
    });
  }
});
