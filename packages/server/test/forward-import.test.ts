import type { PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import type { ForwardReference } from "@trestle/core/catalog";
import { mcpToolUri, type UpstreamCatalog } from "@trestle/transport-mcp";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../src/canonical-json.js";
import { importedName, planImport } from "../src/forwards/catalog-import.js";
import { forwardServiceName, publicUpstream } from "../src/forwards/forward-identity.js";

/** The import as the router plans it: tools addressed with the MCP transport's URIs. */
const planMcpImport = (
  forward: ForwardReference,
  upstream: UpstreamCatalog,
  existing: Parameters<typeof planImport>[2],
) => planImport(forward, upstream, existing, mcpToolUri);

const forward: ForwardReference = {
  name: "gh",
  namespace: "dev",
  prefix: "gh_",
  upstream: {
    kind: "stdio",
    command: "/usr/bin/node",
    args: ["server.js", "--token=s3cr3t-value"],
    env: { KEY: "v" },
  },
};

function upstream(partial: Partial<UpstreamCatalog>): UpstreamCatalog {
  return {
    serverInfo: { name: "up", version: "1" },
    capabilities: { tools: {} },
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    ...partial,
  };
}

const none = {
  tools: [] as ToolReference[],
  resources: [] as ResourceReference[],
  prompts: [] as PromptReference[],
};

describe("planning a forward's import", () => {
  it("keeps full JSON Schemas, titles and annotations, prefixes names and routes to the forward's service", () => {
    const inputSchema = {
      type: "object" as const,
      properties: {
        q: { type: ["string", "null"], minLength: 1 },
        "page size": { type: "integer", maximum: 100 },
      },
      required: ["q"],
      additionalProperties: false,
    };
    const plan = planMcpImport(
      forward,
      upstream({
        tools: [
          {
            name: "search",
            title: "Search",
            inputSchema,
            outputSchema: { type: "object", properties: { hits: { type: "array" } } },
            annotations: { readOnlyHint: true },
          },
        ],
      }),
      none,
    );
    expect(plan.skipped).toEqual([]);
    expect(plan.tools).toEqual([
      {
        name: "gh_search",
        title: "Search",
        uri: "mcp://gh/tools/search",
        type: "forward.dev.gh",
        inputSchema,
        outputSchema: { type: "object", properties: { hits: { type: "array" } } },
        annotations: { readOnlyHint: true },
        namespace: "dev",
        labels: { "trestle.forward": "gh" },
      },
    ]);
  });

  it("imports resources, templates and prompts (expanded upstream) with their own URIs", () => {
    const plan = planMcpImport(
      forward,
      upstream({
        resources: [{ uri: "file:///a.txt", name: "a", mimeType: "text/plain" }],
        resourceTemplates: [{ uriTemplate: "file:///{path}", name: "any file" }],
        prompts: [{ name: "review", arguments: [{ name: "pr", required: true }] }],
      }),
      none,
    );
    expect(plan.resources.map((r) => [r.location, r.name, r.type])).toEqual([
      ["file:///a.txt", "gh_a", "forward.dev.gh"],
      ["file:///{path}", "gh_any_file", "forward.dev.gh"],
    ]);
    expect(plan.prompts).toEqual([
      expect.objectContaining({
        name: "gh_review",
        type: "forward.dev.gh",
        messages: [],
        arguments: [{ name: "pr", required: true }],
      }),
    ]);
  });

  it("keeps what the namespace had first, reports each collision, and imports the first of two equal names", () => {
    const existing = {
      tools: [{ name: "gh_search", uri: "https://x", type: "http", namespace: "dev" }],
      resources: [{ location: "file:///a.txt", type: "file", name: "other", namespace: "dev" }],
      prompts: [{ name: "gh_review", messages: [], namespace: "dev" }],
    };
    const plan = planMcpImport(
      forward,
      upstream({
        tools: [
          { name: "search", inputSchema: { type: "object" } },
          { name: "list/all", inputSchema: { type: "object" } },
          { name: "list_all", inputSchema: { type: "object" } },
        ],
        resources: [{ uri: "file:///a.txt", name: "a" }],
        prompts: [{ name: "review" }],
      }),
      existing,
    );
    expect(plan.tools.map((t) => t.name)).toEqual(["gh_list_all"]);
    expect(plan.skipped).toEqual([
      {
        kind: "tool",
        upstreamName: "search",
        name: "gh_search",
        reason: "the namespace already has a tool named 'gh_search' (served by 'http')",
      },
      {
        kind: "tool",
        upstreamName: "list_all",
        name: "gh_list_all",
        reason: "another tool of the same server is already imported as 'gh_list_all'",
      },
      {
        kind: "resource",
        upstreamName: "file:///a.txt",
        name: "gh_a",
        reason: "the namespace already has a resource at 'file:///a.txt' (served by 'file')",
      },
      {
        kind: "prompt",
        upstreamName: "review",
        name: "gh_review",
        reason: "the namespace already has a prompt named 'gh_review'",
      },
    ]);
  });

  it("replaces its own earlier entries rather than colliding with them", () => {
    const mine = {
      name: "gh_search",
      uri: "mcp://gh/tools/search",
      type: forwardServiceName("dev", "gh"),
      namespace: "dev",
    };
    const plan = planMcpImport(
      forward,
      upstream({ tools: [{ name: "search", inputSchema: { type: "object" } }] }),
      {
        ...none,
        tools: [mine],
      },
    );
    expect(plan.skipped).toEqual([]);
    expect(plan.tools.map((t) => t.name)).toEqual(["gh_search"]);
  });

  it("skips, with the catalog's reason, a tool whose schema the catalog refuses", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [`p${i}`, { type: "string" }]),
    );
    const plan = planMcpImport(
      forward,
      upstream({ tools: [{ name: "huge", inputSchema: { type: "object", properties } }] }),
      none,
    );
    expect(plan.tools).toEqual([]);
    expect(plan.skipped[0]?.reason).toContain("at most 512 properties");
  });

  it("names entries with characters the catalog allows", () => {
    expect(importedName("x_", "a b/c:d")).toBe("x_a_b_c_d");
    expect(importedName(undefined, "ok.name-1")).toBe("ok.name-1");
  });
});

describe("what the API shows of an upstream", () => {
  it("shows the program and the names of the environment, never arguments or values", () => {
    const shown = JSON.stringify(publicUpstream(forward.upstream));
    expect(shown).toBe(
      '{"kind":"stdio","program":"node","argumentCount":2,"environment":["KEY"],"mode":"pooled","sandbox":true,"writablePaths":[]}',
    );
    const http = publicUpstream({
      kind: "http",
      url: "https://user:pw@mcp.example:8443/mcp?key=abc",
      headers: { Authorization: "Bearer t" },
    });
    expect(http).toEqual({ kind: "http", server: "https://mcp.example:8443", headers: ["Authorization"] });
  });
});

describe("canonical JSON", () => {
  it("gives equal text for equal values whatever the key order, nested too", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { e: 3, f: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: "1" }));
  });
});
