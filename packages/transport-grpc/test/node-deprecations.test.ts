import { create } from "@bufbuild/protobuf";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createGrpcWanakuTransport } from "../src/index.js";
import { serveWithProtoLoader } from "./support/proto-loader-server.js";

describe("the lean client on the Node versions it supports", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  // Node 22 and 24 deprecate HTTP/2 priority signalling (DEP0194) and warn, once a process, when a request names a
  // weight: a router printed the warning at its first gRPC call. CI runs this suite on Node 24 too.
  it("makes its calls without a deprecation warning from Node", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    cleanups.push(() => void process.off("warning", onWarning));
    const server = await serveWithProtoLoader(createWanakuReferenceCapability().handlers);
    cleanups.push(() => server.close());
    const transport = createGrpcWanakuTransport();
    cleanups.push(() => transport.close());

    for (let i = 0; i < 3; i++) {
      const reply = await transport.invokeTool(
        create(ToolInvokeRequestSchema, { uri: "echo://n", arguments: { i: String(i) } }),
        server.target,
      );
      expect(JSON.parse(reply.content[0] ?? "{}").arguments.i).toBe(String(i));
    }
    // A warning is emitted on the next tick after the call that caused it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "DeprecationWarning").map((w) => w.message)).toEqual([]);
  });
});
