import { create, equals, toBinary } from "@bufbuild/protobuf";
import type { JsonObject, ToolReference } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import { describe, expect, it } from "vitest";
import { buildToolInvokeRequest as buildRequest } from "../src/index.js";

/** The request for `args` (as a client sent them, nulls and all) on `tool`. */
function buildToolInvokeRequest(args: Record<string, unknown>, tool: ToolReference, requestId?: string) {
  return { request: buildRequest({ tool, arguments: args as JsonObject }, requestId) };
}

function tool(extra: Partial<ToolReference> = {}): ToolReference {
  return { name: "forecast", type: "weather", uri: "weather://{city}?units={units}", ...extra };
}

describe("contract §4.2: uri", () => {
  it("is the tool's uri, verbatim, template placeholders included", () => {
    expect(buildToolInvokeRequest({ city: "Oslo" }, tool()).request.uri).toBe(
      "weather://{city}?units={units}",
    );
  });
});

describe("contract §4.3: arguments", () => {
  it("excludes wanaku_meta_* and wanaku_auth_* arguments and keeps every other one", () => {
    const { request } = buildToolInvokeRequest(
      { city: "Oslo", wanaku_meta_trace: "t", wanaku_auth_Authorization: "Bearer x", wanaku_body: "b" },
      tool(),
    );
    expect(request.arguments).toEqual({ city: "Oslo", wanaku_body: "b" });
  });

  it("drops null and undefined values", () => {
    const { request } = buildToolInvokeRequest({ city: "Oslo", day: null, units: undefined }, tool());
    expect(request.arguments).toEqual({ city: "Oslo" });
  });

  it("turns every value into a string: objects and arrays as JSON text", () => {
    const { request } = buildToolInvokeRequest(
      { n: 3, f: 1.5, ok: false, zero: 0, empty: "", list: [1, "a"], obj: { a: { b: null } } },
      tool(),
    );
    expect(request.arguments).toEqual({
      n: "3",
      f: "1.5",
      ok: "false",
      zero: "0",
      empty: "",
      list: '[1,"a"]',
      obj: '{"a":{"b":null}}',
    });
  });

  it("rejects a value that cannot become text with InvalidArgument naming the argument", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => buildToolInvokeRequest({ loop: cyclic }, tool())).toThrowError(/Argument 'loop'/);
  });
});

describe("contract §4.4: headers", () => {
  const withProperties = tool({
    inputSchema: {
      type: "object",
      properties: {
        "X-Tenant": { type: "string", target: "header", scope: "service", value: "default-tenant" },
        "X-Region": { type: "string", target: "header", scope: "service" },
        "X-Other-Scope": { type: "string", target: "header", scope: "tool", value: "no" },
        "X-Config": { type: "string", target: "configuration", scope: "service", value: "no" },
        "X-Unset": { type: "string", target: "header", scope: "service" },
      },
    },
  });

  it("turns wanaku_meta_<X> into header <X>", () => {
    const { request } = buildToolInvokeRequest({ wanaku_meta_traceparent: "00-abc" }, tool());
    expect(request.headers).toEqual({ traceparent: "00-abc" });
  });

  it("turns wanaku_auth_<X> into header <X>", () => {
    const { request } = buildToolInvokeRequest({ wanaku_auth_Authorization: "Bearer t0k3n" }, tool());
    expect(request.headers).toEqual({ Authorization: "Bearer t0k3n" });
  });

  it("sends service-scoped header properties: the argument of the same name, else the default value", () => {
    const { request } = buildToolInvokeRequest({ "X-Region": "eu" }, withProperties);
    expect(request.headers).toEqual({ "X-Tenant": "default-tenant", "X-Region": "eu" });
    const overridden = buildToolInvokeRequest({ "X-Tenant": "acme" }, withProperties).request;
    expect(overridden.headers["X-Tenant"]).toBe("acme");
  });

  it("ignores properties that are not header-targeted with service scope, and headers with no value", () => {
    const { request } = buildToolInvokeRequest({}, withProperties);
    expect(Object.keys(request.headers)).toEqual(["X-Tenant"]);
  });

  it("merges meta, then properties, then auth: the later wins", () => {
    const { request } = buildToolInvokeRequest(
      { wanaku_meta_X_Tenant: "meta", wanaku_meta_Authorization: "meta", wanaku_auth_Authorization: "auth" },
      tool({
        inputSchema: {
          type: "object",
          properties: {
            X_Tenant: { target: "header", scope: "service", value: "property" },
            Authorization: { target: "header", scope: "service", value: "property" },
          },
        },
      }),
    );
    expect(request.headers).toEqual({ X_Tenant: "property", Authorization: "auth" });
  });

  it("drops null meta and auth arguments", () => {
    const { request } = buildToolInvokeRequest({ wanaku_meta_a: null, wanaku_auth_b: undefined }, tool());
    expect(request.headers).toEqual({});
  });
});

describe("contract §4.5: body", () => {
  const declaring = tool({
    inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } },
  });

  it("is the wanaku_body argument where the input schema declares wanaku_body", () => {
    expect(buildToolInvokeRequest({ wanaku_body: '{"q":1}' }, declaring).request.body).toBe('{"q":1}');
    expect(buildToolInvokeRequest({ wanaku_body: { q: 1 } }, declaring).request.body).toBe('{"q":1}');
  });

  it('is "" where the schema does not declare it, even when the argument is passed', () => {
    expect(buildToolInvokeRequest({ wanaku_body: "ignored" }, tool()).request.body).toBe("");
  });

  it('is "" when the schema declares it but the call omits it', () => {
    expect(buildToolInvokeRequest({}, declaring).request.body).toBe("");
  });
});

describe("contract §4.6 and §4.7: configuration, secrets, request id", () => {
  it("sends the tool's configurationURI and secretsURI", () => {
    const { request } = buildToolInvokeRequest(
      {},
      tool({ configurationURI: "file:///c.properties", secretsURI: "file:///s.properties" }),
    );
    expect(request.configurationUri).toBe("file:///c.properties");
    expect(request.secretsUri).toBe("file:///s.properties");
  });

  it('sends "" when the tool has none', () => {
    const { request } = buildToolInvokeRequest({}, tool());
    expect(request.configurationUri).toBe("");
    expect(request.secretsUri).toBe("");
  });

  it("sends the request id", () => {
    expect(buildToolInvokeRequest({}, tool(), "42").request.requestId).toBe("42");
  });
});

describe("the message", () => {
  it("is the one protobuf-es's create makes from the same fields, every field set", () => {
    const call = {
      tool: tool({ configurationURI: "cfg://x", secretsURI: "sec://y" }),
      arguments: { city: "Oslo", wanaku_meta_trace: "t", wanaku_body: "b" } as JsonObject,
    };
    const request = buildRequest(call, "req-1");
    const made = create(ToolInvokeRequestSchema, {
      uri: request.uri,
      body: request.body,
      arguments: request.arguments,
      configurationUri: "cfg://x",
      secretsUri: "sec://y",
      headers: request.headers,
      requestId: "req-1",
    });
    expect(request).toStrictEqual(made);
    expect(Object.keys(request)).toEqual(Object.keys(made));
    expect(equals(ToolInvokeRequestSchema, request, made)).toBe(true);
    expect(toBinary(ToolInvokeRequestSchema, request)).toEqual(toBinary(ToolInvokeRequestSchema, made));
  });
});
