import { AgentCard } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { normalizeV1Card, scrub } from "./agent-client.js";

const card: AgentCard = {
  name: "A",
  description: "",
  supportedInterfaces: [
    { url: "https://a.example/rpc", protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
  ],
  provider: undefined,
  version: "1",
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {
    bearer: {
      scheme: {
        $case: "httpAuthSecurityScheme",
        value: { description: "", scheme: "Bearer", bearerFormat: "" },
      },
    },
    key: {
      scheme: {
        $case: "apiKeySecurityScheme",
        value: { description: "", location: "header", name: "X-Key" },
      },
    },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
  signatures: [],
};

describe("normalizeV1Card", () => {
  it("reads the proto JSON form the specification gives", () => {
    const read = normalizeV1Card(AgentCard.toJSON(card));
    expect(read.securitySchemes).toEqual(card.securitySchemes);
    expect(read.skills).toEqual([]);
  });

  it("reads the SDK's in-memory form, as an @a2a-js/sdk agent's card handler serialises it", () => {
    const read = normalizeV1Card(JSON.parse(JSON.stringify(card)));
    expect(read.securitySchemes).toEqual(card.securitySchemes);
    expect(read.securityRequirements).toEqual(card.securityRequirements);
  });

  it("refuses what is no object", () => {
    expect(() => normalizeV1Card("card")).toThrow(/not a JSON object/);
  });
});

describe("scrub", () => {
  it("takes header values and the URL past its origin out of a text", () => {
    const agent = {
      url: "https://a.example/agents/x?key=k123",
      headers: { authorization: "Bearer t0ken-value" },
    };
    expect(
      scrub("failed at https://a.example/agents/x?key=k123 with Bearer t0ken-value and t0ken-value", agent),
    ).toBe("failed at https://a.example with [REDACTED] and [REDACTED]");
  });
});
