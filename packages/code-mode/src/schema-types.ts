import { cleanText, literal, tsDocComment } from "./doc-text.js";
import { isPlainPropertyName } from "./identifiers.js";

/** Limits on turning one schema into a type: catalog schemas come from upstream servers and are not trusted. */
export interface SchemaTypeLimits {
  /** Deepest nesting of objects, arrays and unions written out; deeper is `unknown` / `Any`. */
  maxDepth: number;
  /** Schema nodes visited for one type, `$ref`s included; past it, the rest is `unknown` / `Any`. */
  maxNodes: number;
  /** Characters of a property's description kept in its doc comment. */
  maxDescriptionLength: number;
}

type Schema = Record<string, unknown>;

/** The state of one conversion: the root (for `$ref`), the refs being expanded (cycles), the nodes left. */
interface Walk {
  root: unknown;
  expanding: Set<string>;
  nodesLeft: number;
  limits: SchemaTypeLimits;
}

/** The two languages' spellings of the types the conversion needs. */
interface Dialect {
  unknown: string;
  null: string;
  string: string;
  integer: string;
  number: string;
  boolean: string;
  literal(value: string | number | boolean | null): string;
  union(members: string[]): string;
  intersection(members: string[]): string;
  array(item: string): string;
  tuple(items: string[]): string;
  record(value: string): string;
  object(schema: Schema, walk: Walk, depth: number, indent: string): string;
}

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema a local `$ref` (`#/$defs/Address`) points at, or undefined. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isSchema(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function uniqueJoin(members: string[], separator: string): string {
  return [...new Set(members)].join(separator);
}

function typeOf(schema: unknown, dialect: Dialect, walk: Walk, depth: number, indent: string): string {
  if (schema === true || schema === undefined) return dialect.unknown;
  if (!isSchema(schema) || depth > walk.limits.maxDepth || walk.nodesLeft <= 0) return dialect.unknown;
  walk.nodesLeft--;
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    const target = resolveRef(walk.root, ref);
    if (target === undefined || walk.expanding.has(ref)) return dialect.unknown;
    walk.expanding.add(ref);
    const resolved = typeOf(target, dialect, walk, depth + 1, indent);
    walk.expanding.delete(ref);
    return resolved;
  }
  const nullable = schema.nullable === true;
  const withNull = (type: string): string => (nullable ? dialect.union([type, dialect.null]) : type);
  const literalOk = (v: unknown): v is string | number | boolean | null =>
    v === null || ["string", "number", "boolean"].includes(typeof v);
  if ("const" in schema)
    return literalOk(schema.const) ? withNull(dialect.literal(schema.const)) : dialect.unknown;
  if (Array.isArray(schema.enum)) {
    if (schema.enum.length === 0 || !schema.enum.every(literalOk)) return dialect.unknown;
    return withNull(dialect.union(schema.enum.map((v) => dialect.literal(v))));
  }
  const alternatives = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : null;
  if (alternatives && alternatives.length > 0) {
    return withNull(dialect.union(alternatives.map((s) => typeOf(s, dialect, walk, depth + 1, indent))));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return withNull(
      dialect.intersection(schema.allOf.map((s) => typeOf(s, dialect, walk, depth + 1, indent))),
    );
  }
  const types: unknown[] = Array.isArray(schema.type)
    ? schema.type
    : typeof schema.type === "string"
      ? [schema.type]
      : [];
  if (types.length > 1)
    return withNull(
      dialect.union(types.map((t) => typeOf({ ...schema, type: t }, dialect, walk, depth, indent))),
    );
  const type: unknown =
    types[0] ?? (isSchema(schema.properties) ? "object" : "items" in schema ? "array" : undefined);
  switch (type) {
    case "string":
    case "integer":
    case "number":
    case "boolean":
    case "null":
      return withNull(dialect[type]);
    case "array": {
      const tupleItems = Array.isArray(schema.prefixItems)
        ? schema.prefixItems
        : Array.isArray(schema.items)
          ? schema.items
          : null;
      if (tupleItems)
        return withNull(dialect.tuple(tupleItems.map((s) => typeOf(s, dialect, walk, depth + 1, indent))));
      return withNull(dialect.array(typeOf(schema.items, dialect, walk, depth + 1, indent)));
    }
    case "object":
      return withNull(dialect.object(schema, walk, depth, indent));
    default:
      return dialect.unknown;
  }
}

const TYPESCRIPT: Dialect = {
  unknown: "unknown",
  null: "null",
  string: "string",
  integer: "number",
  number: "number",
  boolean: "boolean",
  literal: (value) =>
    typeof value === "string" || typeof value === "number" ? literal(value) : String(value),
  union: (members) => (members.includes("unknown") ? "unknown" : uniqueJoin(members, " | ")),
  intersection: (members) => uniqueJoin(members, " & "),
  array: (item) => (/^[\w.<>[\]]+$/.test(item) ? `${item}[]` : `Array<${item}>`),
  tuple: (items) => `[${items.join(", ")}]`,
  record: (value) => `Record<string, ${value}>`,
  object: (schema, walk, depth, indent) => typescriptObject(schema, walk, depth, indent),
};

const PYTHON: Dialect = {
  unknown: "Any",
  null: "None",
  string: "str",
  integer: "int",
  number: "float",
  boolean: "bool",
  literal: (value) =>
    `Literal[${value === null ? "None" : typeof value === "boolean" ? (value ? "True" : "False") : literal(value)}]`,
  union: (members) => (members.includes("Any") ? "Any" : mergePythonLiterals(uniqueJoin(members, " | "))),
  intersection: (members) => (members.length === 1 ? (members[0] as string) : "dict[str, Any]"),
  array: (item) => `list[${item}]`,
  tuple: (items) => `tuple[${items.join(", ")}]`,
  record: (value) => `dict[str, ${value}]`,
  object: (schema, walk, depth) => {
    const extra = schema.additionalProperties;
    if (!isSchema(schema.properties) && isSchema(extra))
      return `dict[str, ${typeOf(extra, PYTHON, walk, depth + 1, "")}]`;
    return "dict[str, Any]";
  },
};

/** `Literal["a"] | Literal["b"]` → `Literal["a", "b"]`. */
function mergePythonLiterals(union: string): string {
  const members = union.split(" | ");
  const literals = members.filter((m) => m.startsWith("Literal[") && !m.slice(8, -1).includes("Literal["));
  if (literals.length < 2) return union;
  const merged = `Literal[${literals.map((m) => m.slice(8, -1)).join(", ")}]`;
  return [merged, ...members.filter((m) => !literals.includes(m))].join(" | ");
}

/** An object type written inline, one property a line with its description as a doc comment. */
function typescriptObject(schema: Schema, walk: Walk, depth: number, indent: string): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  const extra = schema.additionalProperties;
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const key = isPlainPropertyName(name) ? name : literal(name);
    const description =
      isSchema(property) && typeof property.description === "string" ? property.description : "";
    const doc = tsDocComment([cleanText(description, walk.limits.maxDescriptionLength)], inner);
    const optional = required.has(name) ? "" : "?";
    lines.push(`${doc}${inner}${key}${optional}: ${typeOf(property, TYPESCRIPT, walk, depth + 1, inner)};`);
  }
  if (isSchema(extra))
    lines.push(`${inner}[key: string]: ${typeOf(extra, TYPESCRIPT, walk, depth + 1, inner)};`);
  else if (extra !== false && lines.length === 0) return "Record<string, unknown>";
  if (lines.length === 0) return "Record<string, never>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function newWalk(root: unknown, limits: SchemaTypeLimits): Walk {
  return { root, expanding: new Set(), nodesLeft: limits.maxNodes, limits };
}

/**
 * The TypeScript type of a JSON Schema, written inline (objects with one property a line and its description as
 * a TSDoc comment). Supports `type` (and lists of types), `properties`/`required`/`additionalProperties`,
 * `items`/`prefixItems`, `enum`, `const`, `anyOf`/`oneOf` (unions), `allOf` (intersections), `nullable`, and
 * local `$ref`s (`#/$defs/…`, cycles become `unknown`). Anything else, and anything past the limits, is
 * `unknown`.
 */
export function typescriptType(schema: unknown, limits: SchemaTypeLimits, indent = ""): string {
  return typeOf(schema, TYPESCRIPT, newWalk(schema, limits), 0, indent);
}

/**
 * The Python annotation of a JSON Schema: `str`, `int`, `float`, `bool`, `None`, `list[…]`, `tuple[…]`,
 * `dict[str, …]` (objects, without their properties), `Literal[…]` for enums and consts, `A | B` for unions,
 * `Any` for the rest.
 */
export function pythonType(schema: unknown, limits: SchemaTypeLimits, root: unknown = schema): string {
  return typeOf(schema, PYTHON, newWalk(root, limits), 0, "");
}
