import { Code, type ToolReference } from "@trestle/core";
import { createWanakuReferenceCapability, type WanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  applyToolProvisioning,
  createInvokerBridge,
  createResourceBridge,
  type InvokerBridge,
} from "../src/index.js";
import { createHarness, echoed, type Harness, textOf } from "./harness.js";

let harness: Harness;
let capability: WanakuReferenceCapability;
let invoker: InvokerBridge;

beforeEach(() => {
  harness = createHarness();
  capability = createWanakuReferenceCapability();
  invoker = createInvokerBridge(harness.deps);
});

afterEach(async () => {
  await harness.close();
});

const forecast: ToolReference = {
  name: "forecast",
  type: "weather",
  uri: "echo://forecast",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe("provisioning round trip (in-memory transport)", () => {
  it("provisions a tool, returns it with the URIs and properties, and later calls carry the URIs", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const provisioned = await invoker.provision({
      payload: forecast,
      configurationData: "units=metric",
      secretsData: "apiKey=abc",
    });
    expect(capability.observations.provisions).toEqual([
      {
        name: "forecast",
        configuration: "units=metric",
        secret: "apiKey=abc",
      },
    ]);
    expect(provisioned).toEqual({
      ...forecast,
      configurationURI: "mem://config/forecast",
      secretsURI: "mem://secret/forecast",
      inputSchema: {
        type: "object",
        properties: { city: { type: "string" }, region: { type: "string", description: "Where to run" } },
        required: ["city", "region"],
      },
    });
    expect(forecast.configurationURI).toBeUndefined();
    expect(forecast.inputSchema?.properties).not.toHaveProperty("region");

    const result = await invoker.execute({ city: "Oslo", region: "eu" }, provisioned);
    expect(echoed(textOf(result.content[0]))).toMatchObject({
      configurationUri: "mem://config/forecast",
      secretsUri: "mem://secret/forecast",
    });
  });

  it('sends "" for payloads the caller left out', async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    await invoker.provision({ payload: forecast });
    expect(capability.observations.provisions[0]).toMatchObject({ configuration: "", secret: "" });
  });

  it("provisions a tool on a code execution engine when no tool invoker serves its type", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "code-execution-engine" });
    const provisioned = await invoker.provision({ payload: forecast, configurationData: "a=b" });
    expect(provisioned.configurationURI).toBe("mem://config/forecast");
  });

  it("provisions a resource on its resource provider", async () => {
    harness.serve(capability.handlers, { serviceName: "files", serviceType: "resource-provider" });
    const resources = createResourceBridge(harness.deps);
    const provisioned = await resources.provision({
      payload: { name: "notes", type: "files", location: "file:///notes.md" },
      configurationData: "root=/srv",
      secretsData: "token=xyz",
    });
    expect(provisioned).toEqual({
      name: "notes",
      type: "files",
      location: "file:///notes.md",
      configurationURI: "mem://config/notes",
      secretsURI: "mem://secret/notes",
    });
    expect(capability.observations.provisions[0]).toMatchObject({ name: "notes", secret: "token=xyz" });
  });

  it("rejects with NotFound naming the type when no service serves it", async () => {
    await expect(invoker.provision({ payload: forecast })).rejects.toMatchObject({
      code: Code.NotFound,
      rawMessage: expect.stringMatching(/tool type 'weather'/),
    });
  });

  it("rejects naming the service when it is unavailable", async () => {
    harness.registerDead("weather", "tool-invoker");
    await expect(invoker.provision({ payload: forecast })).rejects.toMatchObject({
      code: Code.Unavailable,
      rawMessage: expect.stringMatching(
        /^Provisioning tool 'forecast' failed: The capability service 'weather' at nowhere:9/,
      ),
    });
  });

  it("emits no tool-call event", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    await invoker.provision({ payload: forecast, secretsData: "k=v" });
    expect(harness.events).toEqual([]);
  });
});

describe("applyToolProvisioning", () => {
  const reference = {
    configurationUri: "c://1",
    secretsUri: "s://1",
    properties: {
      city: { type: "number", description: "replaced?", required: true },
      region: { type: "string", description: "Where", required: true },
      verbose: { type: "boolean", description: "More output", required: false },
    },
  };

  it("adds only properties the schema lacks, keeps existing ones as they are, and requires the required ones", () => {
    const tool: ToolReference = {
      ...forecast,
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    };
    expect(applyToolProvisioning(tool, reference).inputSchema).toEqual({
      type: "object",
      properties: {
        city: { type: "string" },
        region: { type: "string", description: "Where" },
        verbose: { type: "boolean", description: "More output" },
      },
      required: ["region"],
    });
  });

  it("creates the input schema when the tool has none", () => {
    const tool: ToolReference = { name: "t", type: "x", uri: "x://" };
    expect(
      applyToolProvisioning(tool, { ...reference, properties: { a: reference.properties.region } })
        .inputSchema,
    ).toEqual({
      type: "object",
      properties: { a: { type: "string", description: "Where" } },
      required: ["a"],
    });
  });

  it("keeps the tool's URIs when the service returns empty ones", () => {
    const tool: ToolReference = { ...forecast, configurationURI: "old://c", secretsURI: "old://s" };
    const updated = applyToolProvisioning(tool, { configurationUri: "", secretsUri: "", properties: {} });
    expect([updated.configurationURI, updated.secretsURI]).toEqual(["old://c", "old://s"]);
    expect(updated.inputSchema).toEqual(forecast.inputSchema);
  });
});
