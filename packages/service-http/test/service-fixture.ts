import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { createCapabilityServer } from "@trestle/capability";
import type { ServiceTarget } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import { createConnectWanakuTransport } from "@trestle/transport-connect";

/** A transport that speaks the Wanaku messages as they are: these tests check the service's own wire. */
type WanakuTransport = ReturnType<typeof createConnectWanakuTransport>;

import { createHttpService, type HttpServiceOptions } from "../src/index.js";

/** An HTTP tool invoker served by a real capability server, called through the Connect transport. */
export interface ServedHttpService {
  target: ServiceTarget;
  transport: WanakuTransport;
  invoke(init: MessageInitShape<typeof ToolInvokeRequestSchema> & { uri: string }): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts one HTTP tool invoker on a free port, with its own temporary home. */
export async function serveHttpService(options: HttpServiceOptions = {}): Promise<ServedHttpService> {
  const home = await mkdtemp(join(tmpdir(), "trestle-http-test-"));
  const server = createCapabilityServer(createHttpService({ home, ...options }));
  const { host, port } = await server.listen();
  const target: ServiceTarget = {
    id: "http-test",
    serviceName: "http",
    host,
    port,
    serviceType: "tool-invoker",
    protocol: "connect",
  };
  const transport = createConnectWanakuTransport();
  return {
    target,
    transport,
    async invoke(init) {
      const reply = await transport.invokeTool(create(ToolInvokeRequestSchema, init), target);
      return reply.content;
    },
    async close() {
      await transport.close();
      await server.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The rejection of a promise, or a failure when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
