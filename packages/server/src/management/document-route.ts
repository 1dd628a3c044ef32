import { createJsonApi, type JsonApi } from "../http/json-api.js";
import { SERVER_VERSION } from "../version.js";
import { managementApi as op } from "./operations.js";

/** The document's title. */
const TITLE = "Trestle management API";

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document generated from the operations' schemas, served as it is
 * (no envelope), so that OpenAPI tools load it by its URL. Register it last: the document covers the operations routed before it was first read.
 */
export function registerDocumentRoute(api: JsonApi): void {
  api.route(op.openApiDocument, () => ({ data: api.openApiDocument() as Record<string, unknown> }));
}

/**
 * The management API's OpenAPI 3.1 document, generated from {@link managementApi} without a router: the same
 * document a router serves at `/api/openapi.json` (a test holds them equal). For generating a client, or checking
 * one against it.
 */
export function managementApiDocument(): object {
  const api = createJsonApi({ maxBodyBytes: 1, info: { title: TITLE, version: SERVER_VERSION } });
  for (const operation of Object.values(op)) api.route(operation, () => undefined as never);
  return api.openApiDocument();
}

/** The document's `info`, as a router serves it. */
export const MANAGEMENT_API_INFO = { title: TITLE, version: SERVER_VERSION } as const;
