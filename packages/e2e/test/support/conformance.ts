import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error: a plain ESM script of the repository, without types.
import { ensureNode } from "../../../../scripts/node-binary.mjs";
import { api, repoRoot } from "./processes.js";

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The input schema of the suite's JSON Schema 2020-12 scenario: the router must list it unchanged. */
const JSON_SCHEMA_2020_12_INPUT = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // A JSON Schema keyword, not a thenable.
  // biome-ignore lint/suspicious/noThenProperty: the 2020-12 conditional keyword the scenario checks
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

/**
 * The fixture names the conformance scenarios call, as catalog entries routed to the fixture capability (service
 * `conformance`): tools, resources, prompts, and the triggers that change the catalog while a client listens.
 */
export async function addConformanceCatalog(url: string): Promise<void> {
  const tool = (name: string, uri: string, description: string, inputSchema?: object) =>
    api(url, "POST", "/api/v1/tools", {
      name,
      uri,
      type: "conformance",
      description,
      inputSchema: inputSchema ?? { type: "object", properties: {} },
    });
  await tool("test_simple_text", "fixture://simple-text", "Returns simple text");
  await tool("test_error_handling", "fixture://error", "Always fails");
  await tool("test_trigger_tool_change", "fixture://catalog-change?kind=tools", "Adds a tool to the catalog");
  await tool(
    "test_trigger_prompt_change",
    "fixture://catalog-change?kind=prompts",
    "Adds a prompt to the catalog",
  );
  await tool(
    "json_schema_2020_12_tool",
    "fixture://echo",
    "A tool whose input schema uses JSON Schema 2020-12 keywords",
    JSON_SCHEMA_2020_12_INPUT,
  );
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

/** One scenario's outcome as the suite wrote it (`-o DIR`). */
export interface ScenarioOutcome {
  scenario: string;
  checks: { id: string; status: string; errorMessage?: string }[];
}

/** What a run of the suite said: its exit code, its output, and each scenario's checks. */
export interface ConformanceRun {
  code: number | null;
  output: string;
  scenarios: ScenarioOutcome[];
}

/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, the e2e package's pinned
 * version) against `mcpUrl` with one requirement set and its baseline, on the pinned Node 22 the suite needs.
 */
export function runConformanceSuite(
  mcpUrl: string,
  requirements: "2026-07-28" | "2025-11-25",
  baseline: string,
): Promise<ConformanceRun> {
  const node22 = ensureNode(22) as string;
  const outDir = mkdtempSync(join(tmpdir(), `conformance-${requirements}-`));
  const suite = join(
    repoRoot,
    "packages",
    "e2e",
    "node_modules",
    "@modelcontextprotocol",
    "conformance",
    "dist",
    "index.js",
  );
  return new Promise((resolve) => {
    const child = spawn(
      node22,
      [
        suite,
        "server",
        "--url",
        mcpUrl,
        "--requirements",
        requirements,
        "--expected-failures",
        baseline,
        "-o",
        outDir,
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
    child.on("exit", (code) => {
      const scenarios: ScenarioOutcome[] = [];
      for (const dir of readdirSync(outDir)) {
        try {
          const checks = JSON.parse(readFileSync(join(outDir, dir, "checks.json"), "utf8"));
          scenarios.push({
            scenario: dir.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, ""),
            checks,
          });
        } catch {
          // A scenario that wrote no checks shows in the output.
        }
      }
      resolve({ code, output, scenarios });
    });
  });
}

/** The checks of `run` that did not succeed, one line each, for an assertion message. */
export function failedChecks(run: ConformanceRun): string[] {
  const failed: string[] = [];
  for (const { scenario, checks } of run.scenarios) {
    for (const check of checks) {
      if (check.status === "FAILURE")
        failed.push(`${scenario}:${check.id}: ${(check.errorMessage ?? "").slice(0, 300)}`);
    }
  }
  return failed;
}
