import { Code, TrestleError } from "@trestle/core";

/** The name of the default namespace, served at `/mcp`. It always exists and cannot be deleted. */
export const DEFAULT_NAMESPACE = "";

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** True when `name` is a valid namespace name: "" (the default) or a DNS label. */
export function isNamespaceName(name: unknown): name is string {
  return typeof name === "string" && (name === DEFAULT_NAMESPACE || DNS_LABEL.test(name));
}

/** How a namespace name reads in a message: the default one has no name of its own. */
export function describeNamespace(name: string): string {
  return name === DEFAULT_NAMESPACE ? "the default namespace" : `namespace '${name}'`;
}

/**
 * Normalises a namespace name: `undefined`, `null` and "" mean the default namespace ("").
 *
 * Names are DNS labels (lower-case a-z, 0-9 and '-', at most 63 characters, not starting or ending with '-'),
 * which also keeps them safe as the path segment of `/{namespace}/mcp`.
 *
 * @throws TrestleError `InvalidArgument` for anything else, saying what a valid name looks like.
 */
export function normalizeNamespace(name: string | null | undefined): string {
  if (name === undefined || name === null) return DEFAULT_NAMESPACE;
  if (isNamespaceName(name)) return name;
  const raw: unknown = name;
  const shown =
    typeof raw === "string" ? JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw) : typeof raw;
  throw new TrestleError(
    `Invalid namespace name ${shown}: a namespace name is a DNS label (lower-case letters a-z, digits and '-', 1 to 63 characters, not starting or ending with '-'), or "" for the default namespace`,
    Code.InvalidArgument,
  );
}
