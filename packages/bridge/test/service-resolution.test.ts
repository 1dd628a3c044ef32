import { Code, type ServiceType, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { createInvokerBridge, type ExplainingResolver } from "../src/index.js";
import { resolveEngine, resolveResourceService, resolveToolService } from "../src/service-resolution.js";

/** A resolver that finds nothing, and knows of services that are registered but out of rotation. */
function outOfRotation(known: Record<string, string>): ExplainingResolver & { explained: string[] } {
  const explained: string[] = [];
  return {
    explained,
    async resolve() {
      return undefined;
    },
    async resolveCodeExecution() {
      return undefined;
    },
    explain(serviceName: string, serviceType: ServiceType) {
      explained.push(`${serviceName}/${serviceType}`);
      const why = known[`${serviceName}/${serviceType}`];
      return why === undefined
        ? undefined
        : new TrestleError(
            `The capability service '${serviceName}' is unavailable: ${why}`,
            Code.Unavailable,
          );
    },
    explainCodeExecution(engineType: string, language: string) {
      const why = known[`${engineType}/${language}`];
      return why === undefined ? undefined : new TrestleError(`engine unavailable: ${why}`, Code.Unavailable);
    },
  };
}

describe("service resolution says why nothing was found", () => {
  it("reports a registered service that is out of rotation as unavailable, with the resolver's reason", async () => {
    const resolver = outOfRotation({ "weather/tool-invoker": "its instance is down" });
    const error = await resolveToolService(resolver, "weather").catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: Code.Unavailable,
      rawMessage: "The capability service 'weather' is unavailable: its instance is down",
    });
  });

  it("asks about the code-execution-engine fallback too, and says 'not registered' only when no one knows the name", async () => {
    const engineOnly = outOfRotation({ "weather/code-execution-engine": "its circuit is open" });
    await expect(resolveToolService(engineOnly, "weather")).rejects.toMatchObject({
      code: Code.Unavailable,
    });
    expect(engineOnly.explained).toEqual(["weather/tool-invoker", "weather/code-execution-engine"]);

    const nobody = outOfRotation({});
    await expect(resolveToolService(nobody, "ghost")).rejects.toMatchObject({
      code: Code.NotFound,
      rawMessage: expect.stringMatching(/^No capability service is registered for tool type 'ghost'/),
    });
    await expect(resolveResourceService(nobody, "ghost")).rejects.toMatchObject({ code: Code.NotFound });
    await expect(resolveEngine(nobody, "jvm", "python")).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("explains resources and engines the same way", async () => {
    const resolver = outOfRotation({
      "files/resource-provider": "its instance is down",
      "jvm/python": "down",
    });
    await expect(resolveResourceService(resolver, "files")).rejects.toMatchObject({ code: Code.Unavailable });
    await expect(resolveEngine(resolver, "jvm", "python")).rejects.toMatchObject({
      code: Code.Unavailable,
      rawMessage: "engine unavailable: down",
    });
  });

  it("works with a resolver that cannot explain, or whose explanation fails", async () => {
    const plain: ExplainingResolver = {
      resolve: async () => undefined,
      resolveCodeExecution: async () => undefined,
    };
    await expect(resolveToolService(plain, "weather")).rejects.toMatchObject({ code: Code.NotFound });
    const broken: ExplainingResolver = {
      ...plain,
      explain() {
        throw new Error("defect");
      },
    };
    await expect(resolveToolService(broken, "weather")).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("reaches the MCP client as the tool result's text", async () => {
    const resolver = outOfRotation({ "weather/tool-invoker": "its instance is down (connection refused)" });
    const bridge = createInvokerBridge({
      resolver,
      transports: {
        transportFor() {
          throw new Error("no call may be dispatched");
        },
        release() {},
        async close() {},
      },
      events: { emit() {} },
    });
    const result = await bridge.execute({}, { name: "forecast", type: "weather", uri: "echo://a" });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      text: "The capability service 'weather' is unavailable: its instance is down (connection refused)",
    });
  });
});
