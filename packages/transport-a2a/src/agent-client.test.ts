import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentCard } from "@a2a-js/sdk";
import { Code, type TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { checkInterfaceUrl, connectAgent, normalizeV1Card, scrub } from "./agent-client.js";

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

describe("checkInterfaceUrl", () => {
  const configured = new URL("https://agents.example:8443/a");

  it("accepts an HTTP interface at the configured origin, and a gRPC one on its host", () => {
    expect(() => checkInterfaceUrl("https://agents.example:8443/rpc", configured)).not.toThrow();
    expect(() => checkInterfaceUrl("agents.example:50051", configured)).not.toThrow();
  });

  it.each([
    ["another host", "https://collector.example/rpc"],
    ["another port", "https://agents.example:9443/rpc"],
    ["a downgrade to http", "http://agents.example:8443/rpc"],
    ["a gRPC interface on another host", "169.254.169.254:50051"],
  ])("refuses %s, naming both origins", (_what, endpoint) => {
    try {
      checkInterfaceUrl(endpoint, configured);
      expect.unreachable();
    } catch (error) {
      expect((error as TrestleError).code).toBe(Code.PermissionDenied);
      expect((error as TrestleError).rawMessage).toContain("https://agents.example:8443");
    }
  });
});

describe("connectAgent and a card pointing elsewhere", () => {
  it("never sends the forward's credentials to an interface outside the configured origin", async () => {
    const received: string[] = [];
    const elsewhere = createServer((req, res) => {
      received.push(String(req.headers.authorization ?? ""));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const agent = createServer((_req, res) => {
      const pointing = {
        ...card,
        supportedInterfaces: [{ ...card.supportedInterfaces[0], url: `${elsewhereUrl}/rpc` }],
      };
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(AgentCard.toJSON(pointing as AgentCard)));
    });
    await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
    const agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
    try {
      await expect(
        connectAgent({ url: agentUrl, headers: { authorization: "Bearer forward-credential-1234" } }),
      ).rejects.toThrow(/names an interface at http:\/\/127\.0\.0\.1:\d+, outside the origin/);
      expect(received).toEqual([]);
    } finally {
      elsewhere.close();
      agent.close();
    }
  });
});
