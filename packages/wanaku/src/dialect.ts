import { Code, type ServiceTarget, TrestleError } from "@trestle/core";

/** The Wanaku wire dialects a capability service may speak: v1 (Wanaku >= 0.1.0) or the seed-era legacy packages. */
export type WanakuDialect = "v1" | "legacy";

/** Every {@link WanakuDialect}, the default first. */
export const WANAKU_DIALECTS: readonly WanakuDialect[] = ["v1", "legacy"];

/** True when `value` names a {@link WanakuDialect}. */
export function isWanakuDialect(value: unknown): value is WanakuDialect {
  return typeof value === "string" && (WANAKU_DIALECTS as readonly string[]).includes(value);
}

/**
 * The dialect a Wanaku transport speaks to `target`: `chosen` when given (a deployer's setting), else the
 * target's own `dialect`, else `"v1"`.
 *
 * @throws TrestleError `FailedPrecondition` naming the dialect when it is none of {@link WANAKU_DIALECTS}.
 */
export function wanakuDialectOf(target: ServiceTarget, chosen?: string): WanakuDialect {
  const dialect = chosen ?? target.dialect ?? "v1";
  if (isWanakuDialect(dialect)) return dialect;
  throw new TrestleError(
    `Service '${target.serviceName}' names the wire dialect '${dialect}', which Wanaku does not have (${WANAKU_DIALECTS.join(", ")})`,
    Code.FailedPrecondition,
  );
}
