import { Code, type ResourceReference, TrestleError } from "@trestle/core";
import type { ResourceRequest } from "@trestle/proto";
import { buildResourceRequest as buildRequest } from "@trestle/wanaku";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createResourceBridge, type ResourceBridge, resourceRead } from "../src/index.js";
import { createHarness, type Harness } from "./harness.js";

function resource(extra: Partial<ResourceReference> = {}): ResourceReference {
  return { name: "today", type: "weather", location: "weather://oslo/today", ...extra };
}

/** The request a Wanaku transport sends for the bridge's read of `uri` on `resource`. */
function buildResourceRequest(resource: ResourceReference, uri: string, requestId?: string) {
  return buildRequest(resourceRead(resource, uri), requestId);
}

describe("contract §4: the ResourceRequest", () => {
  it("sends the requested URI as location, with type, name, URIs and request id", () => {
    const request = buildResourceRequest(
      resource({ configurationURI: "mem://c", secretsURI: "mem://s" }),
      "weather://oslo/today",
      "r1",
    );
    expect(request).toMatchObject({
      location: "weather://oslo/today",
      type: "weather",
      name: "today",
      params: {},
      configurationUri: "mem://c",
      secretsUri: "mem://s",
      requestId: "r1",
    });
  });

  it('sends "" for URIs the resource does not have', () => {
    const request = buildResourceRequest(resource(), "weather://oslo/today");
    expect([request.configurationUri, request.secretsUri, request.requestId]).toEqual(["", "", ""]);
  });

  it("sends the reference's params", () => {
    const request = buildResourceRequest(
      resource({
        params: [
          { name: "units", value: "metric" },
          { name: "lang", value: "no" },
        ],
      }),
      "weather://oslo/today",
    );
    expect(request.params).toEqual({ units: "metric", lang: "no" });
  });

  it("adds the variables the URI binds in the template, which win over params of the same name", () => {
    const request = buildResourceRequest(
      resource({
        location: "weather://{city}/{day}",
        params: [
          { name: "day", value: "default" },
          { name: "u", value: "m" },
        ],
      }),
      "weather://bergen/mon",
    );
    expect(request.location).toBe("weather://bergen/mon");
    expect(request.params).toEqual({ city: "bergen", day: "mon", u: "m" });
  });

  it("rejects a URI that does not match the template with InvalidArgument", () => {
    expect(() =>
      buildResourceRequest(resource({ location: "weather://{city}/today" }), "other://x"),
    ).toThrowError(expect.objectContaining({ code: Code.InvalidArgument }));
  });
});

let harness: Harness;
let bridge: ResourceBridge;
let seen: ResourceRequest[];

beforeEach(() => {
  harness = createHarness();
  bridge = createResourceBridge(harness.deps);
  seen = [];
});

afterEach(async () => {
  await harness.close();
});

function provider(
  content: string[] | Error,
  serviceType: "resource-provider" | "multi-capability" = "resource-provider",
) {
  return harness.serve(
    {
      resourceAcquirer(request) {
        seen.push(request);
        if (content instanceof Error) throw content;
        return { content };
      },
    },
    { serviceName: "weather", serviceType },
  );
}

describe("read", () => {
  it("takes the provider from a resolver that answers at once, without asking its resolve", async () => {
    provider(["now"]);
    const askedNow: string[] = [];
    harness.deps.resolver.resolveNow = (serviceName, serviceType) => {
      askedNow.push(`${serviceName}/${serviceType}`);
      return harness.resolver.targets.find((t) => t.serviceName === serviceName);
    };
    const contents = await bridge.read(resource(), "weather://oslo/today", {});
    expect(contents.map((c) => ("text" in c ? c.text : undefined))).toEqual(["now"]);
    expect(askedNow).toEqual(["weather/resource-provider"]);
    expect(harness.resolver.asked).toEqual([]);
  });

  it("resolves (type, resource-provider) and maps each content string to {uri, mimeType, text}", async () => {
    provider(["first", "second"]);
    const contents = await bridge.read(
      resource({ location: "weather://{city}/today", mimeType: "text/plain" }),
      "weather://oslo/today",
      {
        requestId: "5",
      },
    );
    expect(harness.resolver.asked).toEqual(["weather/resource-provider"]);
    expect(contents).toEqual([
      { uri: "weather://oslo/today", mimeType: "text/plain", text: "first" },
      { uri: "weather://oslo/today", mimeType: "text/plain", text: "second" },
    ]);
    expect(seen[0]).toMatchObject({
      location: "weather://oslo/today",
      params: { city: "oslo" },
      requestId: "5",
    });
  });

  it("leaves mimeType out when the reference has none", async () => {
    provider(["x"]);
    expect(await bridge.read(resource(), "weather://oslo/today")).toEqual([
      { uri: "weather://oslo/today", text: "x" },
    ]);
  });

  it("reaches a multi-capability service", async () => {
    provider(["x"], "multi-capability");
    expect(await bridge.read(resource(), "weather://oslo/today")).toHaveLength(1);
  });

  it("rejects with NotFound naming the type when nothing provides it", async () => {
    await expect(bridge.read(resource({ type: "tides" }), "weather://oslo/today")).rejects.toMatchObject({
      code: Code.NotFound,
      rawMessage: expect.stringMatching(/resource type 'tides'/),
    });
  });

  it("rejects naming the service when it is unavailable, and reports a service failure", async () => {
    const dead = harness.registerDead("weather", "resource-provider");
    await expect(bridge.read(resource(), "weather://oslo/today")).rejects.toMatchObject({
      code: Code.Unavailable,
      rawMessage: expect.stringMatching(/^The capability service 'weather' at nowhere:9 is unavailable/),
    });
    expect(harness.outcomes.log).toEqual([`started:${dead.id}`, `ended:${dead.id}:true`]);
  });

  it("rejects with the service's own code and text for an error it reported", async () => {
    const live = provider(new TrestleError("disk full", Code.Internal));
    await expect(bridge.read(resource(), "weather://oslo/today")).rejects.toMatchObject({
      code: Code.Internal,
      rawMessage: "disk full",
    });
    expect(harness.outcomes.log).toEqual([`started:${live.id}`, `ended:${live.id}:false`]);
  });
});
