import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type ApiOperation,
  createJsonApi,
  defineOperation,
  type JsonApi,
  undocumentedRoutes,
} from "../src/http/json-api.js";
import { registerAuditRoutes } from "../src/management/audit-routes.js";
import { registerCatalogRoutes } from "../src/management/catalog-routes.js";
import { registerCodeExecutionRoutes } from "../src/management/code-execution-routes.js";
import { registerDiscoveryRoutes } from "../src/management/discovery-routes.js";
import {
  MANAGEMENT_API_INFO,
  managementApiDocument,
  registerDocumentRoute,
} from "../src/management/document-route.js";
import { registerEventRoutes } from "../src/management/event-routes.js";
import { registerForwardRoutes } from "../src/management/forward-routes.js";
import { managementApi } from "../src/management/operations.js";

/**
 * The management API as the router composes it (`createRouter` registers the same route files in the same way);
 * the collaborators are never called while routes are registered, so none is needed.
 */
function routerApi(): JsonApi {
  const api = createJsonApi({ maxBodyBytes: 1024, info: MANAGEMENT_API_INFO });
  const none = {} as never;
  const registry = { catalog: {}, services: {} } as never;
  registerDiscoveryRoutes(api, { registry });
  registerCatalogRoutes(api, { registry, invoker: none, resources: none });
  registerEventRoutes(api, { events: none, registry });
  registerForwardRoutes(api, { forwards: none });
  registerCodeExecutionRoutes(api, { calls: none }).close();
  registerAuditRoutes(api, { auditLog: none, managedPolicy: none, policyTable: none });
  registerDocumentRoute(api);
  return api;
}

type Document = {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};

describe("the management API's OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(managementApiDocument() as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every route the router serves, with its body, its answer and its errors", () => {
    const api = routerApi();
    expect(undocumentedRoutes(api)).toEqual([]);
    const served = api.servedRoutes().map((r) => `${r.method} ${r.path}`);
    const declared = Object.values(managementApi).map((o) => `${o.method} ${o.path}`);
    expect(new Set(served)).toEqual(new Set(declared));
    const document = api.openApiDocument() as Document;
    expect(document).toEqual(managementApiDocument());
    const operations: readonly ApiOperation[] = Object.values(managementApi);
    for (const operation of operations) {
      const entry = document.paths[operation.path]?.[operation.method.toLowerCase()] as
        | { operationId: string; requestBody?: unknown; responses: Record<string, { content?: unknown }> }
        | undefined;
      expect(entry?.operationId, `${operation.method} ${operation.path}`).toBe(operation.id);
      if (operation.body) expect(entry?.requestBody, operation.id).toBeDefined();
      const success = operation.response.kind === "json" ? String(operation.response.status) : "200";
      expect(entry?.responses[success]?.content, operation.id).toBeDefined();
      for (const status of ["401", "403", "429", "500", ...operation.errors.map(String)]) {
        expect(JSON.stringify(entry?.responses[status]?.content), `${operation.id} ${status}`).toContain(
          "#/components/schemas/ErrorEnvelope",
        );
      }
    }
  });

  it("refers to the registry's schemas for catalog entries, once each", () => {
    const document = managementApiDocument() as { components: { schemas: Record<string, unknown> } };
    for (const name of ["Tool", "Resource", "Prompt", "Namespace", "Forward", "ServiceRegistration"]) {
      expect(Object.keys(document.components.schemas)).toContain(name);
    }
    const addTool = (document as unknown as Document).paths["/api/v1/tools"]?.post as unknown as {
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    expect(addTool.requestBody.content["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/Tool",
    });
  });

  it("is the one committed at packages/server/openapi.json (regenerate: pnpm --filter @trestle/server openapi)", () => {
    const committed = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8")) as object;
    expect(committed).toEqual(managementApiDocument());
  });
});

describe("a route without schemas", () => {
  it("is found: a route added to the application directly is missing from the document", () => {
    const api = routerApi();
    api.app.get("/api/v1/planted", (c) => c.json({ error: null, data: "no schema" }));
    expect(undocumentedRoutes(api)).toEqual(["GET /api/v1/planted"]);
    const document = api.openApiDocument() as Document;
    expect(document.paths["/api/v1/planted"]).toBeUndefined();
  });

  it("cannot be routed as an operation without a response or path parameter schema", () => {
    const api = createJsonApi({ maxBodyBytes: 1024 });
    const planted = defineOperation({
      id: "planted",
      method: "GET",
      path: "/api/v1/planted/{name}",
      summary: "A planted route",
      tags: ["test"],
      scope: "admin",
      params: z.object({ name: z.string() }),
      response: { kind: "json", status: 200, description: "Something", data: z.string() },
      errors: [],
    });
    expect(() => api.route({ ...planted, response: undefined } as never, () => undefined as never)).toThrow(
      /no schema for its response/,
    );
    expect(() => api.route({ ...planted, params: undefined } as never, () => undefined as never)).toThrow(
      /no schema for path parameter 'name'/,
    );
    expect(undocumentedRoutes(api)).toEqual([]);
  });
});
