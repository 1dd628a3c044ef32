import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ApiOperation } from "./json-api.js";

/** The registry of paths and components an `OpenAPIHono` application generates its document from. */
export type OpenApiRegistry = OpenAPIHono["openAPIRegistry"];

/** The error envelope every failure answers with: `{error: {message}, data: null}`. */
export const errorEnvelopeSchema = z
  .object({
    error: z.object({ message: z.string().describe("What went wrong, in a sentence a user can act on") }),
    data: z.null(),
  })
  .meta({ id: "ErrorEnvelope", description: "A failed request: the error's message, no data" });

/** The envelope of a successful answer whose `data` is described by `data`. */
export function envelopeOf<D extends z.ZodType>(data: D) {
  return z.object({
    error: z.null(),
    data,
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        "What was done but cannot work yet (a tool whose service is not registered), one sentence each",
      ),
  });
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "The request is invalid: a bad path parameter, query parameter or body (the message names each bad field)",
  401: "No token, or an unknown one (`WWW-Authenticate: Bearer`)",
  403: "The token lacks the scope, the Host or Origin is not allowed, or the principal may not change this entry",
  404: "No such entry",
  405: "The path exists, but not with this method",
  409: "The entry already exists, changed meanwhile, or is in a state that refuses the change",
  413: "The body is larger than the router's `maxBodyBytes`",
  429: "Too many requests from this token or address (`Retry-After`)",
  500: "The router failed",
  501: "The router does not implement this",
  502: "The capability service did not answer in time",
  503: "The store or the capability service is unavailable (`Retry-After`)",
};

/** Statuses every management operation may answer, whatever it does. */
const COMMON_ERRORS = [401, 403, 429, 500] as const;

/** Registers what every operation's document refers to: the error envelope and the bearer scheme. */
export function registerCommonComponents(registry: OpenApiRegistry): void {
  registry.register("ErrorEnvelope", errorEnvelopeSchema);
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description:
      "A token from the router's `tokens` configuration: `admin` scope for the management API, `register` enough for capability registration",
  });
}

/**
 * Registers an operation in the document: its path, method, parameters, body, answer (in its envelope) and
 * every error answer. Schemas with an `id` in their metadata (the registry's `Tool`, `Resource`, …) become
 * components referenced by `$ref`.
 */
export function registerOperation(registry: OpenApiRegistry, operation: ApiOperation): void {
  const errors = [
    ...new Set([...COMMON_ERRORS, ...operation.errors, ...(operation.body ? [400, 413] : [])]),
  ].sort();
  const errorResponses = Object.fromEntries(
    errors.map((status) => [
      String(status),
      {
        description: ERROR_DESCRIPTIONS[status] ?? "An error",
        content: { "application/json": { schema: errorEnvelopeSchema } },
      },
    ]),
  );
  const { response } = operation;
  const success =
    response.kind === "json"
      ? {
          [String(response.status)]: {
            description: response.description,
            content: {
              "application/json": { schema: response.bare ? response.data : envelopeOf(response.data) },
            },
          },
        }
      : {
          "200": {
            description: `${response.description} Each event's \`data\` is one JSON document as described here.`,
            content: { "text/event-stream": { schema: response.events } },
          },
        };
  const body = operation.body;
  registry.registerPath({
    operationId: operation.id,
    method: operation.method.toLowerCase() as "get" | "post" | "put" | "delete",
    path: operation.path,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [...operation.tags],
    security: [{ bearer: [] }],
    ...(operation.scope === "register" ? { "x-token-scope": "register" } : { "x-token-scope": "admin" }),
    request: {
      ...(operation.params ? { params: operation.params } : {}),
      ...(operation.query ? { query: operation.query } : {}),
      ...(body
        ? {
            body: {
              description: body.description,
              required: true,
              content:
                body.kind === "json"
                  ? { "application/json": { schema: body.documented ?? body.schema } }
                  : {
                      "text/plain": { schema: body.schema },
                      ...(body.json ? { "application/json": { schema: body.json } } : {}),
                    },
            },
          }
        : {}),
    },
    responses: { ...success, ...errorResponses },
  });
}

/** The document's top-level fields, for `getOpenAPI31Document`. */
export function documentConfig(info: { title: string; version: string }) {
  return {
    openapi: "3.1.0",
    info: {
      ...info,
      description:
        "Trestle's management API: Wanaku-compatible paths, every answer in the envelope `{error, data}`.",
    },
    security: [{ bearer: [] }],
  };
}
