import { create } from "@bufbuild/protobuf";
import type { ToolReference } from "@trestle/core";
import { createReferenceCapability } from "@trestle/core/testing";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createInvokerBridge,
  createResourceBridge,
  type ProtocolCodec,
  type ToolCallResult,
} from "../src/index.js";
import { createHarness, echoed, type Harness } from "./harness.js";

let harness: Harness;

beforeEach(() => {
  harness = createHarness();
});
afterEach(async () => {
  await harness.close();
});

const tool: ToolReference = { name: "sum", type: "upstream", uri: "echo://sum" };

// The harness reaches every service through its one transport, registered as "grpc": the codec is keyed so.
/** A codec that sends the arguments as JSON in the body and reads replies as one JSON block each. */
const jsonCodec: ProtocolCodec = {
  toolRequest: (args, t, requestId) =>
    create(ToolInvokeRequestSchema, { uri: t.uri, body: JSON.stringify(args), requestId }),
  toolResult: (content): Omit<ToolCallResult, "isError"> => ({
    content: [{ type: "decoded", count: content.length }],
    structuredContent: { first: content[0] },
  }),
  resourceContents: (content, defaults) => content.map((blob) => ({ uri: `${defaults.uri}#blob`, blob })),
};

describe("protocol codecs", () => {
  it("write the request and read the reply for services of their protocol", async () => {
    harness.serve(createReferenceCapability().handlers, {
      serviceName: "upstream",
      serviceType: "multi-capability",
      protocol: "grpc",
    });
    const bridge = createInvokerBridge({ ...harness.deps, codecs: { grpc: jsonCodec } });
    const result = await bridge.execute({ a: 1, b: [true] }, tool, { requestId: "9" });
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: "decoded", count: 1 }]);
    const sent = echoed(result.structuredContent?.first as string);
    expect(sent).toMatchObject({
      uri: "echo://sum",
      body: '{"a":1,"b":[true]}',
      arguments: {},
      requestId: "9",
    });
    // The events are those of any call.
    expect(harness.events.map((e) => e.type)).toEqual(["started", "completed"]);
  });

  it("leave services of other protocols to the contract's request and text results", async () => {
    harness.serve(createReferenceCapability().handlers, {
      serviceName: "upstream",
      serviceType: "tool-invoker",
    });
    const bridge = createInvokerBridge({ ...harness.deps, codecs: { json: jsonCodec } });
    const result = await bridge.execute({ a: 1 }, tool);
    expect(result.content[0]?.type).toBe("text");
    expect(echoed(result.content[0]?.text)).toMatchObject({ arguments: { a: "1" }, body: "" });
  });

  it("read resource replies into blobs for their protocol", async () => {
    harness.serve(createReferenceCapability().handlers, {
      serviceName: "upstream",
      serviceType: "multi-capability",
      protocol: "grpc",
    });
    const resources = createResourceBridge({ ...harness.deps, codecs: { grpc: jsonCodec } });
    const contents = await resources.read({ name: "r", type: "upstream", location: "echo://r" }, "echo://r");
    expect(contents.length).toBeGreaterThan(0);
    expect(contents[0]).toMatchObject({ uri: "echo://r#blob", blob: expect.any(String) });
  });
});
