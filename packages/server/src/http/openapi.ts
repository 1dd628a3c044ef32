/** Builds the OpenAPI 3.1 document of the management API from its routes. */
export function buildOpenApiDocument(
  routes: readonly { method: string; path: string }[],
  info: { title: string; version: string },
): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, object>)[route.method.toLowerCase()] = {
      ...(params.length > 0 ? { parameters: params } : {}),
      responses: {
        default: {
          description: "The envelope {error, data}",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Envelope" } } },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info,
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        Envelope: {
          type: "object",
          properties: {
            error: {
              oneOf: [{ type: "null" }, { type: "object", properties: { message: { type: "string" } } }],
            },
            data: {},
          },
          required: ["error", "data"],
        },
      },
    },
    security: [{ bearer: [] }],
  };
}
