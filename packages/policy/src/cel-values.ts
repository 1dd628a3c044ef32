import { type CelInput, type CelMap, celList, celMap } from "@bufbuild/cel";
import type { PolicyPrincipal, PolicyTool } from "./types.js";

/** Nesting deeper than this in claims becomes `null`: conversion work stays bounded. */
const MAX_DEPTH = 32;

/**
 * A JSON value as a CEL value, converted eagerly: objects become maps, arrays lists, numbers doubles (CEL's
 * JSON mapping, as `google.protobuf.Value`); anything that is not JSON (functions, `undefined` members,
 * symbols) is left out, and nesting beyond {@link MAX_DEPTH} becomes `null`. Never throws.
 */
export function jsonToCel(value: unknown, depth = 0): CelInput {
  if (value === null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return Number(value);
    case "object":
      break;
    default:
      return null;
  }
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return celList(value.map((item) => jsonToCel(item, depth + 1)));
  const entries = new Map<string, CelInput>();
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    if (member !== undefined && typeof member !== "function" && typeof member !== "symbol") {
      entries.set(key, jsonToCel(member, depth + 1));
    }
  }
  return celMap(entries);
}

/**
 * Call arguments as a CEL map converted on access: only the members a rule reads are converted, so a large
 * body costs nothing until a rule looks into it. Values must be JSON (what a request body parses to).
 */
export function argumentsToCel(args: Readonly<Record<string, unknown>> | undefined): CelMap {
  const entries = args === undefined ? [] : Object.entries(args).filter(([, v]) => v !== undefined);
  // Members stay as parsed JSON; @bufbuild/cel converts each one when a rule reads it.
  return celMap(new Map(entries as [string, CelInput][]));
}

/** `principal` as a CEL map: `name`, `groups`, `scopes`, `claims`. */
export function principalToCel(principal: PolicyPrincipal): CelMap {
  return celMap(
    new Map<string, CelInput>([
      ["name", principal.name],
      ["groups", celList([...principal.groups])],
      ["scopes", celList([...principal.scopes])],
      ["claims", jsonToCel(principal.claims)],
    ]),
  );
}

/** `tool` as a CEL map: `name`, `labels`. */
export function toolToCel(tool: PolicyTool | undefined): CelMap {
  return celMap(
    new Map<string, CelInput>([
      ["name", tool?.name ?? ""],
      ["labels", celMap(new Map(Object.entries(tool?.labels ?? {})))],
    ]),
  );
}

/** A map with one string member (`resource.uri`, `prompt.name`). */
export function recordToCel(key: string, value: string | undefined): CelMap {
  return celMap(new Map([[key, value ?? ""]]));
}
