import { createInMemoryNetwork, createInMemoryTransport, type ToolReference } from "@trestle/core";
import { createReferenceCapability } from "@trestle/core/testing";
import { describe, expect, it } from "vitest";
import { fromWanakuTransport } from "../src/index.js";

describe("fromWanakuTransport", () => {
  const network = createInMemoryNetwork();
  const capability = createReferenceCapability();
  const { target } = network.serve(capability.handlers);
  const transport = fromWanakuTransport(createInMemoryTransport({ network }));

  it("sends a tool call as the contract's request and returns the reply as text blocks", async () => {
    const tool: ToolReference = {
      name: "echo",
      type: "svc",
      uri: "echo://tool/{id}",
      configurationURI: "file:///c",
      inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } },
    };
    const result = await transport.callTool(
      { tool, arguments: { id: 42, wanaku_meta_trace: "t1", wanaku_body: { q: 1 }, gone: null } },
      target,
      { requestId: "r-1" },
    );
    expect(result.content).toHaveLength(1);
    const seen = JSON.parse(result.content[0]?.type === "text" ? result.content[0].text : "{}");
    expect(seen).toMatchObject({
      uri: "echo://tool/{id}",
      body: '{"q":1}',
      arguments: { id: "42", wanaku_body: '{"q":1}' },
      headers: { trace: "t1" },
      configurationUri: "file:///c",
      secretsUri: "",
      requestId: "r-1",
    });
  });

  it("reads a resource with its params and the URI asked for", async () => {
    const result = await transport.readResource(
      {
        resource: { location: "file:///{name}", type: "file", name: "a", mimeType: "text/plain" },
        uri: "file:///x",
        params: { name: "x" },
      },
      target,
      { requestId: "r-2" },
    );
    expect(result.contents.map((c) => ("text" in c ? c.text : ""))).toEqual([
      "file:///x",
      "file",
      "a",
      '{"name":"x"}',
      "r-2",
    ]);
    expect(result.contents[0]?.mimeType).toBe("text/plain");
  });

  it("streams code outputs and ends with the exit", async () => {
    const outputs = [];
    for await (const output of transport.executeCode(
      { engineType: "kit", language: "count", code: "", arguments: { n: "2" } },
      target,
    )) {
      outputs.push(output);
    }
    expect(outputs).toEqual([
      { type: "status", status: "pending" },
      { type: "output", stream: "stdout", text: "line 0\n" },
      { type: "output", stream: "stdout", text: "line 1\n" },
      { type: "exit", status: "completed", exitCode: 0 },
    ]);
  });

  it("provisions BUILTIN payloads", async () => {
    const reference = await transport.provision(
      { name: "w", configurationData: "a=1", secretsData: "k=s3cr3t" },
      target,
    );
    expect(reference.configurationUri).toBe("mem://config/w");
    expect(capability.observations.provisions.at(-1)).toMatchObject({
      name: "w",
      configuration: "a=1",
      secret: "k=s3cr3t",
    });
  });
});
