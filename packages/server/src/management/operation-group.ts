import type { z } from "zod";
import { type ApiOperation, defineOperation } from "../http/json-api.js";

/** What every operation of a group has in common: its tag and scope, and optionally its path parameters and query. */
export type OperationDefaults = Pick<ApiOperation, "tags" | "scope"> &
  Partial<Pick<ApiOperation, "params" | "query">>;

/**
 * A `defineOperation` for a group of operations that share a tag and a scope (and perhaps path parameters and a
 * query): each operation then states only what differs. What an operation states itself wins over the shared
 * part. Literal types are kept, as `defineOperation` keeps them.
 *
 * @example
 * ```ts
 * const forwardOperation = operationGroup({ tags: ["forwards"], scope: "admin" });
 * const listForwards = forwardOperation({ id: "listForwards", method: "GET", path: "/api/v1/forwards", … });
 * ```
 */
export function operationGroup<const D extends OperationDefaults>(shared: D) {
  return <const O extends Omit<ApiOperation, "tags" | "scope"> & Partial<ApiOperation>>(operation: O) =>
    defineOperation({ ...shared, ...operation });
}

/** An answer in the envelope with `data` described by `data`: 200 unless `status` says otherwise. */
export function jsonAnswer<const S extends z.ZodType, const N extends 200 | 201 | 202 = 200>(
  description: string,
  data: S,
  status: N = 200 as N,
) {
  return { kind: "json", status, description, data } as const;
}
