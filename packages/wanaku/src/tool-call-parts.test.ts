import type { ToolReference } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { toolCallParts } from "./tool-call-parts.js";

const tool: ToolReference = { name: "deploy", type: "http", uri: "https://deploy.example/{app}" };

describe("toolCallParts' secret values", () => {
  it("holds the secret-named fields nested in an object argument, so they are scrubbed wherever they reappear", () => {
    const parts = toolCallParts(
      { app: "shop", environment: { DATABASE_URL: "postgres://db", credentials: { password: "hunter22" } } },
      tool,
    );
    expect(parts.secretValues).toContain("hunter22");
    expect(parts.secretValues).not.toContain("postgres://db");
    // What the capability receives is the argument as the client sent it.
    expect(JSON.parse(parts.arguments.environment as string)).toEqual({
      DATABASE_URL: "postgres://db",
      credentials: { password: "hunter22" },
    });
  });

  it("holds top-level secret arguments as before", () => {
    expect(toolCallParts({ api_key: "k3y-123" }, tool).secretValues).toEqual(["k3y-123"]);
  });
});
