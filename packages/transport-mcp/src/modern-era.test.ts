import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { failureSubject } from "./mcp-failure.js";
import { inputRequiredOf, inputResponseParams, modernMeta } from "./modern-era.js";

const subject = failureSubject({ kind: "http", url: "https://mcp.example/mcp?key=s3cret" });

describe("input_required results", () => {
  it("become core's InputRequired with the upstream's keys and state as they are", () => {
    const params = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 };
    expect(
      inputRequiredOf(
        {
          resultType: "input_required",
          inputRequests: {
            "weird key/ä": { method: "sampling/createMessage", params },
            roots: { method: "roots/list" },
            ask: { method: "elicitation/create", params: { message: "?" } },
          },
          requestState: "opaque.state==",
        },
        subject,
      ),
    ).toEqual({
      requests: {
        "weird key/ä": { kind: "sampling", params },
        roots: { kind: "roots", params: {} },
        ask: { kind: "elicitation", params: { message: "?" } },
      },
      state: "opaque.state==",
    });
  });

  it("are undefined for a complete result, with or without resultType", () => {
    expect(inputRequiredOf({ resultType: "complete", content: [] }, subject)).toBeUndefined();
    expect(inputRequiredOf({ content: [] }, subject)).toBeUndefined();
  });

  it("may carry state alone (load shedding)", () => {
    expect(inputRequiredOf({ resultType: "input_required", requestState: "s" }, subject)).toEqual({
      requests: {},
      state: "s",
    });
  });

  it("fail with one sentence when they ask with a method that is not an input request, or with nothing", () => {
    const bad = () =>
      inputRequiredOf(
        { resultType: "input_required", inputRequests: { x: { method: "tools/call", params: {} } } },
        subject,
      );
    expect(bad).toThrow(TrestleError);
    expect(bad).toThrow(/asked for input with 'tools\/call'/);
    try {
      inputRequiredOf({ resultType: "input_required" }, subject);
    } catch (error) {
      expect((error as TrestleError).code).toBe(Code.Internal);
      expect((error as TrestleError).rawMessage).toBe(
        "The MCP server at https://mcp.example answered input_required with neither inputRequests nor requestState",
      );
      return;
    }
    throw new Error("expected a failure");
  });
});

describe("the repeated call's params", () => {
  it("carry the answers and the state verbatim, and nothing without input", () => {
    expect(inputResponseParams(undefined)).toEqual({});
    expect(inputResponseParams({ responses: { a: { action: "accept" } }, state: "s" })).toEqual({
      inputResponses: { a: { action: "accept" } },
      requestState: "s",
    });
    expect(inputResponseParams({ responses: {} })).toEqual({ inputResponses: {} });
  });
});

describe("modern _meta", () => {
  it("names the revision, the client's capabilities and identity, and a log level only when asked", () => {
    const meta = modernMeta({
      clientInfo: { name: "trestle", version: "1" },
      capabilities: { sampling: {} },
    });
    expect(meta).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
      "io.modelcontextprotocol/clientInfo": { name: "trestle", version: "1" },
    });
    expect(
      modernMeta(
        { clientInfo: { name: "t", version: "1" }, capabilities: {}, logLevel: "debug" },
        { progressToken: "p" },
      ),
    ).toMatchObject({ progressToken: "p", "io.modelcontextprotocol/logLevel": "debug" });
  });
});
