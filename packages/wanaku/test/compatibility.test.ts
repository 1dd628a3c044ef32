import { toBinary } from "@bufbuild/protobuf";
import type { JsonObject, ToolReference } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import { describe, expect, it } from "vitest";
import { buildToolInvokeRequest, describeWanakuToolCall, toolCallParts } from "../src/index.js";

// Compatibility: Wanaku's argument rules moved from @trestle/core (where the bridge applied them to every call) to
// this package (applied by the Wanaku transports alone). What follows was captured from the code before the move:
// the protobuf bytes of each request, the secret values found, and the request as a call's event recorded it.
// Byte for byte the same wire, the same secrets scrubbed, the same record.

const tool = (extra: Partial<ToolReference> = {}): ToolReference => ({
  name: "deploy",
  type: "http",
  uri: "https://deploy.example/{app}",
  ...extra,
});

/** Calls that exercise every rule of contract §4, with what the rules made of them before they moved here. */
const cases: Record<string, [Record<string, unknown>, ToolReference]> = {
  plain: [{ city: "Oslo", days: 3, metric: true, gone: null }, tool()],
  headers: [
    {
      city: "Oslo",
      wanaku_meta_Trace: "t-1",
      "wanaku_auth_X-Token": "s3cr3t-token",
      wanaku_meta_Accept: "json",
    },
    tool({ configurationURI: "file:///c", secretsURI: "file:///s" }),
  ],
  body: [
    { wanaku_body: { user: "al", client_secret: "cs-1" }, note: "n" },
    tool({ inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } } }),
  ],
  undeclaredBody: [{ wanaku_body: "ignored as body", q: "1" }, tool()],
  headerProperties: [
    { "X-Tenant": "from-arg", nested: { a: [1, 2], password: "pw-9" } },
    tool({
      inputSchema: {
        type: "object",
        properties: {
          "X-Tenant": { target: "header", scope: "service", value: "acme" },
          "X-Api-Key": { target: "header", scope: "service", value: "key-123" },
          local: { target: "header", scope: "tool", value: "no" },
        },
      },
    }),
  ],
  laterWins: [
    {
      wanaku_meta_Authorization: "meta",
      wanaku_auth_Authorization: "Bearer auth-wins",
      Authorization: "prop",
    },
    tool({
      inputSchema: { type: "object", properties: { Authorization: { target: "header", scope: "service" } } },
    }),
  ],
};

/** `ToolInvokeRequest` bytes (Base64) that the rules in @trestle/core built, request id "req-7". */
const WIRE: Record<string, string> = {
  plain:
    "ChxodHRwczovL2RlcGxveS5leGFtcGxlL3thcHB9GgwKBGNpdHkSBE9zbG8aCQoEZGF5cxIBMxoOCgZtZXRyaWMSBHRydWVKBXJlcS03",
  headers:
    "ChxodHRwczovL2RlcGxveS5leGFtcGxlL3thcHB9GgwKBGNpdHkSBE9zbG8iCWZpbGU6Ly8vYyoJZmlsZTovLy9zMgwKBVRyYWNlEgN0LTEyDgoGQWNjZXB0EgRqc29uMhcKB1gtVG9rZW4SDHMzY3IzdC10b2tlbkoFcmVxLTc=",
  body: "ChxodHRwczovL2RlcGxveS5leGFtcGxlL3thcHB9EiR7InVzZXIiOiJhbCIsImNsaWVudF9zZWNyZXQiOiJjcy0xIn0aMwoLd2FuYWt1X2JvZHkSJHsidXNlciI6ImFsIiwiY2xpZW50X3NlY3JldCI6ImNzLTEifRoJCgRub3RlEgFuSgVyZXEtNw==",
  undeclaredBody:
    "ChxodHRwczovL2RlcGxveS5leGFtcGxlL3thcHB9Gh4KC3dhbmFrdV9ib2R5Eg9pZ25vcmVkIGFzIGJvZHkaBgoBcRIBMUoFcmVxLTc=",
  headerProperties:
    "ChxodHRwczovL2RlcGxveS5leGFtcGxlL3thcHB9GhQKCFgtVGVuYW50Eghmcm9tLWFyZxonCgZuZXN0ZWQSHXsiYSI6WzEsMl0sInBhc3N3b3JkIjoicHctOSJ9MhQKCFgtVGVuYW50Eghmcm9tLWFyZzIUCglYLUFwaS1LZXkSB2tleS0xMjNKBXJlcS03",
  laterWins:
    "ChxodHRwczovL2RlcGxveS5leGFtcGxlL3thcHB9GhUKDUF1dGhvcml6YXRpb24SBHByb3AyIQoNQXV0aG9yaXphdGlvbhIQQmVhcmVyIGF1dGgtd2luc0oFcmVxLTc=",
};

/** What `toolCallParts` in @trestle/core found secret, and which headers came from `wanaku_auth_*`. */
const SECRETS: Record<string, { secretValues: string[]; authHeaders: string[] }> = {
  plain: { secretValues: [], authHeaders: [] },
  headers: { secretValues: ["s3cr3t-token", "s3cr3t-token"], authHeaders: ["X-Token"] },
  body: { secretValues: ["cs-1", "cs-1"], authHeaders: [] },
  undeclaredBody: { secretValues: [], authHeaders: [] },
  headerProperties: { secretValues: ["pw-9", "key-123", "key-123"], authHeaders: [] },
  laterWins: {
    secretValues: ["meta", "Bearer auth-wins", "prop", "prop", "Bearer auth-wins"],
    authHeaders: ["Authorization"],
  },
};

/** The STARTED event's arguments, headers and body that the bridge recorded from those rules. */
const RECORDS: Record<
  string,
  { arguments: Record<string, string>; headers: Record<string, string>; body: string }
> = {
  plain: { arguments: { city: "Oslo", days: "3", metric: "true" }, headers: {}, body: "" },
  headers: {
    arguments: { city: "Oslo" },
    headers: { Trace: "t-1", Accept: "json", "X-Token": "[REDACTED]" },
    body: "",
  },
  body: {
    arguments: { wanaku_body: '{"user":"al","client_secret":"[REDACTED]"}', note: "n" },
    headers: {},
    body: '{"user":"al","client_secret":"[REDACTED]"}',
  },
  undeclaredBody: { arguments: { wanaku_body: "ignored as body", q: "1" }, headers: {}, body: "" },
  headerProperties: {
    arguments: { "X-Tenant": "from-arg", nested: '{"a":[1,2],"password":"[REDACTED]"}' },
    headers: { "X-Tenant": "from-arg", "X-Api-Key": "[REDACTED]" },
    body: "",
  },
  laterWins: {
    arguments: { Authorization: "[REDACTED]" },
    headers: { Authorization: "[REDACTED]" },
    body: "",
  },
};

describe("Wanaku's argument rules, moved here from @trestle/core", () => {
  it.each(Object.keys(cases))("build the same request bytes for '%s'", (name) => {
    const [args, t] = cases[name] as [Record<string, unknown>, ToolReference];
    const request = buildToolInvokeRequest({ tool: t, arguments: args as JsonObject }, "req-7");
    expect(Buffer.from(toBinary(ToolInvokeRequestSchema, request)).toString("base64")).toBe(WIRE[name]);
  });

  it.each(Object.keys(cases))("find the same secret values for '%s'", (name) => {
    const [args, t] = cases[name] as [Record<string, unknown>, ToolReference];
    const parts = toolCallParts(args, t);
    expect({ secretValues: parts.secretValues, authHeaders: [...parts.authHeaders] }).toEqual(SECRETS[name]);
    const description = describeWanakuToolCall({ tool: t, arguments: args as JsonObject });
    expect(description.secretValues).toEqual(SECRETS[name]?.secretValues);
  });

  it.each(Object.keys(cases))("record the same request in the call's event for '%s'", (name) => {
    const [args, t] = cases[name] as [Record<string, unknown>, ToolReference];
    expect(describeWanakuToolCall({ tool: t, arguments: args as JsonObject }).record()).toEqual(
      RECORDS[name],
    );
  });
});
