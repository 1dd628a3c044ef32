import type { z } from "zod";
import type { managementApi } from "../management/operations.js";

/*
 * The client's types, taken from the router's own operation schemas (type-only: nothing of the router is loaded),
 * so the client and the API have one definition of every body and answer.
 */

type Api = typeof managementApi;

/** The name of a management API operation, as the router defines it. */
export type ApiOperationId = keyof Api;

/** What an operation answers: the envelope's `data`, as its schema describes it. */
export type ApiData<K extends ApiOperationId> = Api[K]["response"] extends {
  kind: "json";
  data: infer S extends z.ZodType;
}
  ? z.output<S>
  : never;

/** What an operation's body takes. */
export type ApiBody<K extends ApiOperationId> = Api[K] extends { body: { schema: infer S extends z.ZodType } }
  ? z.input<S>
  : never;

/** One event of an operation that answers with an event stream. */
export type ApiEvent<K extends ApiOperationId> = Api[K]["response"] extends {
  kind: "sse";
  events: infer S extends z.ZodType;
}
  ? z.output<S>
  : never;
