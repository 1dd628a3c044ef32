import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  type RouterProcess,
  repoRoot,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  stopAll,
} from "./support/processes.js";

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The fixture names the conformance scenarios call, as catalog entries routed to the fixture capability. */
async function addFixtureCatalog(url: string): Promise<void> {
  const tool = (name: string, uri: string, description: string) =>
    api(url, "POST", "/api/v1/tools", {
      name,
      uri,
      type: "conformance",
      description,
      inputSchema: { type: "object", properties: {} },
    });
  await tool("test_simple_text", "fixture://simple-text", "Returns simple text");
  await tool("test_error_handling", "fixture://error", "Always fails");
  const resource = (location: string, name: string, mimeType: string) =>
    api(url, "POST", "/api/v1/resources", {
      location,
      name,
      type: "conformance",
      mimeType,
      description: name,
    });
  await resource("test://static-text", "static-text", "text/plain");
  await resource("test://static-binary", "static-binary", "image/png");
  await resource("test://template/{id}/data", "template-data", "application/json");
  const prompt = (body: object) => api(url, "POST", "/api/v1/prompts", body);
  await prompt({
    name: "test_simple_prompt",
    description: "A simple prompt",
    messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
  });
  await prompt({
    name: "test_prompt_with_arguments",
    description: "A prompt with arguments",
    arguments: [
      { name: "arg1", description: "First argument", required: true },
      { name: "arg2", description: "Second argument", required: true },
    ],
    messages: [
      {
        role: "user",
        content: { type: "text", text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'" },
      },
    ],
  });
  await prompt({
    name: "test_prompt_with_embedded_resource",
    description: "A prompt with an embedded resource",
    arguments: [{ name: "resourceUri", description: "The resource", required: true }],
    messages: [
      {
        role: "user",
        content: {
          type: "resource",
          resource: {
            uri: "test://example-resource",
            mimeType: "text/plain",
            text: "Embedded resource content",
          },
        },
      },
      {
        role: "user",
        content: { type: "text", text: "Please process the embedded resource {{resourceUri}}." },
      },
    ],
  });
  await prompt({
    name: "test_prompt_with_image",
    description: "A prompt with an image",
    messages: [
      { role: "user", content: { type: "image", data: PNG_1X1, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  });
}

function runConformance(url: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        join(
          repoRoot,
          "packages",
          "e2e",
          "node_modules",
          "@modelcontextprotocol",
          "conformance",
          "dist",
          "index.js",
        ),
        "server",
        "--url",
        `${url}/mcp`,
        "--expected-failures",
        join(repoRoot, "packages", "e2e", "conformance-baseline.yml"),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("exit", (code) => resolve({ code, output }));
  });
}

describe("the official MCP conformance suite against the router", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter();
    await startFixtureCapability(router.url, ["--service-name", "conformance"]);
    await addFixtureCatalog(router.url);
    // What the Wanaku contract cannot carry (typed content, logging and progress during a call) comes from an MCP
    // server behind a forward, spawned per call so that its logging messages belong to the call.
    await api(router.url, "POST", "/api/v1/forwards", {
      name: "rich-content",
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [join(repoRoot, "packages", "e2e", "fixtures", "conformance-mcp-server.mjs")],
        mode: "per-call",
      },
    });
    await serviceHealthy(router.url, "conformance");
  }, 120_000);

  afterAll(stopAll);

  it("passes every scenario except those the architecture cannot serve (conformance-baseline.yml)", async () => {
    const { code, output } = await runConformance(router.url);
    const summary = output.slice(output.indexOf("=== SUMMARY ==="));
    expect(code, summary).toBe(0);
    expect(summary).toMatch(/server-initialize: \d+ passed, 0 failed/);
    expect(summary).toMatch(/tools-call-simple-text: \d+ passed, 0 failed/);
    expect(summary).toMatch(/dns-rebinding-protection: \d+ passed, 0 failed/);
    // Through the forward: content blocks, and logging and progress during a call.
    for (const scenario of [
      "tools-call-image",
      "tools-call-audio",
      "tools-call-embedded-resource",
      "tools-call-mixed-content",
      "tools-call-with-logging",
      "tools-call-with-progress",
    ]) {
      expect(summary).toMatch(new RegExp(`${scenario}: [1-9]\\d* passed, 0 failed`));
    }
  }, 300_000);
});
