import type {
  CategorySpec,
  CustomVerbSpec,
  EntitySpec,
  FieldTuple,
  NameStyle,
  ProductSpec,
  StandardVerb,
} from "./catalog-spec.js";
import { CATEGORIES } from "./domains/index.js";
import { createSeededRandom, type SeededRandom } from "./seeded-random.js";
import { STANDARD_VERBS } from "./verbs.js";

/** A JSON Schema of one argument or result field. */
export type GeneratedSchema = Record<string, unknown>;

/** A generated tool, shaped as MCP `tools/list` lists a tool. */
export interface GeneratedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, GeneratedSchema>; required?: string[] };
  outputSchema?: { type: "object"; properties: Record<string, GeneratedSchema>; required?: string[] };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** Options of {@link generateToolCatalog}. */
export interface ToolCatalogOptions {
  /** How many tools; at most {@link toolCatalogCapacity}. Default 10,000. */
  count?: number;
  /** The seed; the same seed and count give the same catalog. Default {@link DEFAULT_CATALOG_SEED}. */
  seed?: number;
}

/** The seed used when none is given. */
export const DEFAULT_CATALOG_SEED = 20_260_515;

/**
 * Entities every product has besides its category's (unless the category has one of the same noun): the signed-in
 * account, webhooks, the organization's users, the audit log, API usage.
 */
const COMMON_ENTITIES: readonly EntitySpec[] = [
  {
    noun: "current user",
    gloss: "The account that the configured {product} credentials belong to.",
    fields: [],
    verbs: ["get"],
  },
  {
    noun: "webhook",
    gloss: "A webhook posts an HTTP callback to a URL when something changes in {product}.",
    fields: [
      ["url!", "uri", "The URL that receives the callbacks"],
      ["events!", "string[]", "Event types that trigger the callback"],
      ["active?", "boolean", "Whether deliveries are sent"],
    ],
    verbs: ["list", "get", "create", "update", "delete"],
    custom: [
      { verb: "test", name: "test webhook", description: "Sends a test delivery to a {product} {noun}." },
    ],
  },
  {
    noun: "user",
    gloss: "A {noun} (seat, member) of the {product} organization, with a role.",
    fields: [
      ["email!?", "email", "Email address"],
      ["name", "string", "Display name"],
      ["role?", "enum:owner|admin|member|guest", "Role in the organization"],
    ],
    verbs: ["list", "get", "update", "delete"],
    custom: [
      {
        verb: "invite",
        name: "invite user",
        onItem: false,
        description: "Invites someone by email to join the {product} organization with a role.",
        args: [
          ["email!", "email", "Who to invite"],
          ["role", "enum:admin|member|guest", "Role to give"],
        ],
      },
    ],
  },
  {
    noun: "audit log entry",
    plural: "audit log entries",
    gloss: "An {noun} records who did what, and when, in {product}, for security reviews and compliance.",
    fields: [
      ["actor?", "string", "Only actions by this user"],
      ["action?", "string", "Only this kind of action"],
      ["after?", "date-time", "Only entries after this time"],
    ],
    verbs: ["list", "search", "export"],
  },
  {
    noun: "api usage",
    plural: "api usage",
    gloss: "How much of its {product} API quota and rate limit the account has used.",
    fields: [],
    verbs: [],
    custom: [
      {
        verb: "get",
        name: "get api usage",
        onItem: false,
        readOnly: true,
        description:
          "Returns the {product} API requests made this period, the quota and the remaining rate limit.",
      },
    ],
  },
];

interface ParsedField {
  name: string;
  required: boolean;
  filter: boolean;
  schema: GeneratedSchema;
}

function parseField([rawName, type, description]: FieldTuple, style: NameStyle): ParsedField {
  const required = rawName.includes("!");
  const filter = rawName.includes("?");
  const name = argumentName(rawName.replace(/[!?]/g, ""), style);
  return { name, required, filter, schema: { ...schemaOfType(type), description } };
}

function schemaOfType(type: string): GeneratedSchema {
  if (type.startsWith("enum:")) return { type: "string", enum: type.slice(5).split("|") };
  if (type.endsWith("[]")) return { type: "array", items: schemaOfType(type.slice(0, -2)) };
  switch (type) {
    case "date":
    case "date-time":
    case "email":
    case "uri":
      return { type: "string", format: type };
    case "object":
      return { type: "object", additionalProperties: true };
    case "string":
    case "integer":
    case "number":
    case "boolean":
      return { type };
    default:
      throw new Error(`unknown field type '${type}'`);
  }
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
const words = (text: string): string[] => text.split(/[\s_]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
const camel = (parts: readonly string[]): string =>
  parts.map((w, i) => (i === 0 ? w.toLowerCase() : capitalize(w.toLowerCase()))).join("");

function argumentName(snakeName: string, style: NameStyle): string {
  return style === "snake" || style === "kebab" ? snakeName : camel(words(snakeName));
}

function toolName(product: ProductSpec, action: readonly string[], verb: string, pluralNoun: string): string {
  const key = words(product.key);
  switch (product.style) {
    case "snake":
      return [...key, ...action].join("_").toLowerCase();
    case "kebab":
      return [...key, ...action].join("-").toLowerCase();
    case "camel":
      return camel([...key, ...action]);
    case "pascal":
      return [...key, ...action].map((w) => capitalize(w.toLowerCase())).join("");
    case "dot":
      return `${key.join("").toLowerCase()}.${camel(words(pluralNoun))}.${camel(words(verb))}`;
  }
}

interface ProductContext {
  product: ProductSpec;
  random: SeededRandom;
  limitName: string;
  cursorName: string;
}

function renamed(product: ProductSpec, noun: string): string {
  return product.rename?.[noun] ?? noun;
}

/** A phrase with the product's own nouns: "merge pull request" → "merge merge request" on GitLab. */
function renamedPhrase(product: ProductSpec, phrase: string): string {
  const renames = Object.entries(product.rename ?? {}).sort(([a], [b]) => b.length - a.length);
  let result = ` ${phrase} `;
  for (const [from, to] of renames) result = result.split(` ${from} `).join(` ${to} `);
  return result.trim();
}

function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

function buildTool(
  context: ProductContext,
  entity: EntitySpec,
  verb: StandardVerb | CustomVerbSpec,
): GeneratedTool {
  const { product, random } = context;
  const style = product.style;
  const renamedNoun = product.rename?.[entity.noun];
  const noun = renamedNoun ?? entity.noun;
  const originalPlural = entity.plural ?? `${entity.noun}s`;
  const pluralWords = renamedNoun ? (product.rename?.[originalPlural] ?? `${renamedNoun}s`) : originalPlural;
  const parentNoun = entity.parent ? renamed(product, entity.parent.noun) : undefined;
  const where = parentNoun ? `a ${product.label} ${parentNoun}` : product.label;
  const values = { product: product.label, noun, plural: pluralWords, where };
  const standard = typeof verb === "string" ? STANDARD_VERBS[verb] : undefined;
  const custom = typeof verb === "string" ? undefined : verb;
  const verbWords = typeof verb === "string" ? verb : verb.verb;
  const onItem = standard ? standard.onItem : (custom?.onItem ?? true);

  const action = custom?.name
    ? words(renamedPhrase(product, custom.name))
    : [...words(verbWords), ...words(standard?.pluralName ? pluralWords : noun)];
  const name = toolName(product, action, verbWords, pluralWords);

  const sentence = standard ? random.pick(standard.templates) : (custom?.description ?? "");
  const description = `${fill(sentence, values)} ${fill(entity.gloss, values)}`;

  const properties: Record<string, GeneratedSchema> = {};
  const required: string[] = [];
  const add = (field: ParsedField, isRequired: boolean): void => {
    properties[field.name] = field.schema;
    if (isRequired) required.push(field.name);
  };
  const parentRequired = verb !== "search";
  for (const f of entity.parent?.fields ?? []) add(parseField(f, style), parentRequired);
  const idField = entity.id ?? [`${entity.noun.replace(/ /g, "_")}_id`, "string", `ID of the ${noun}`];
  if (onItem && entity.fields.length + (entity.id ? 1 : 0) > 0) add(parseField(idField, style), true);
  const fields = entity.fields.map((f) => parseField(f, style));
  const limit = { name: context.limitName, schema: { type: "integer", minimum: 1, maximum: 100 } };
  switch (verb) {
    case "list":
    case "count":
    case "export":
    case "search":
      if (verb === "search")
        add({ ...fieldOf("query", "string", "Text to search for", style), required: true }, true);
      for (const f of fields.filter((x) => x.filter)) add(f, false);
      if (verb === "export")
        add(fieldOf("format", "enum:csv|json", "File format of the export", style), false);
      if (verb === "list" || verb === "search") {
        add(fieldOf(limit.name, "integer", "Maximum number of results to return (1-100)", style), false);
        add(fieldOf(context.cursorName, "string", "Cursor of the page to return", style), false);
      }
      break;
    case "create":
      for (const f of fields) add(f, f.required);
      break;
    case "update":
      for (const f of fields) add(f, false);
      break;
    case "get":
    case "delete":
    case "archive":
      break;
    default:
      for (const a of verb.args ?? []) {
        const f = parseField(a, style);
        add(f, f.required);
      }
  }

  const tool: GeneratedTool = {
    name,
    description,
    inputSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
  };
  if (random.chance(0.4)) {
    const titleWords = [...action];
    tool.title = random.chance(0.5)
      ? capitalize(titleWords.join(" "))
      : `${product.label}: ${titleWords.join(" ")}`;
  }
  const readOnly = standard ? standard.readOnly : (custom?.readOnly ?? false);
  const destructive = standard ? standard.destructive : (custom?.destructive ?? false);
  if (readOnly || destructive)
    tool.annotations = readOnly ? { readOnlyHint: true } : { destructiveHint: true };
  if (
    (verb === "get" || verb === "create" || verb === "update") &&
    random.chance(0.35) &&
    fields.length > 0
  ) {
    const id = parseField(idField, style);
    tool.outputSchema = {
      type: "object",
      properties: Object.fromEntries([id, ...fields].map((f) => [f.name, f.schema])),
      required: [id.name],
    };
  }
  return tool;
}

function fieldOf(name: string, type: string, description: string, style: NameStyle): ParsedField {
  return parseField([name, type, description], style);
}

function toolsOfProduct(category: CategorySpec, product: ProductSpec, random: SeededRandom): GeneratedTool[] {
  const snake = product.style === "snake" || product.style === "kebab";
  const context: ProductContext = {
    product,
    random,
    limitName: random.pick(
      snake ? ["limit", "per_page", "max_results"] : ["limit", "maxResults", "pageSize"],
    ),
    cursorName: random.pick(snake ? ["cursor", "page_token", "starting_after"] : ["cursor", "pageToken"]),
  };
  const entities = [
    ...category.entities.filter((e) => !product.without?.includes(e.noun)),
    ...(product.extra ?? []),
  ];
  const nouns = new Set(entities.map((e) => e.noun));
  entities.push(...COMMON_ENTITIES.filter((e) => !nouns.has(e.noun)));
  const tools: GeneratedTool[] = [];
  for (const entity of entities) {
    for (const verb of entity.verbs) tools.push(buildTool(context, entity, verb));
    for (const verb of entity.custom ?? []) tools.push(buildTool(context, entity, verb));
  }
  return tools;
}

/** Every tool the catalog's data describes, in a stable order, with a seed's choices of wording. */
function allTools(seed: number): GeneratedTool[] {
  const random = createSeededRandom(seed);
  const tools: GeneratedTool[] = [];
  const seen = new Set<string>();
  for (const category of CATEGORIES) {
    for (const product of category.products) {
      for (const tool of toolsOfProduct(category, product, random)) {
        if (seen.has(tool.name)) throw new Error(`the catalog data names two tools '${tool.name}'`);
        seen.add(tool.name);
        tools.push(tool);
      }
    }
  }
  return tools;
}

/** How many distinct tools the generator can make. */
export function toolCatalogCapacity(): number {
  return allTools(DEFAULT_CATALOG_SEED).length;
}

/**
 * Generates a realistic catalog of tools for tests and measurements: about 130 products in 30 categories (code
 * hosting, issue trackers, chat, payments, CRM, databases, cloud, files, calendars, weather, …), each with its
 * own naming style (`github_create_issue`, `linearCreateIssue`, `gitea-create-issue`, `teams.messages.send`),
 * descriptions, argument names and descriptions, some output schemas and annotations. Products of one category
 * share entities, so the catalog is full of near-duplicates (`jira_create_issue`, `linearCreateIssue`) and
 * distractors (`list` / `search` / `count` of one entity).
 *
 * Deterministic: the same options give the same tools in the same order, on every machine. A smaller catalog
 * is a seeded sample of the full one, in the full one's order.
 *
 * @throws RangeError when `count` is negative, not an integer, or more than {@link toolCatalogCapacity}.
 * @example
 * ```ts
 * const tools = generateToolCatalog({ count: 500 });
 * ```
 */
export function generateToolCatalog(options: ToolCatalogOptions = {}): GeneratedTool[] {
  const count = options.count ?? 10_000;
  const seed = options.seed ?? DEFAULT_CATALOG_SEED;
  const tools = allTools(seed);
  if (!Number.isInteger(count) || count < 0 || count > tools.length)
    throw new RangeError(`count must be an integer from 0 to ${tools.length}, got ${count}`);
  const order = tools.map((_, i) => i);
  const pick = createSeededRandom(seed ^ 0x5bd1e995);
  for (let i = 0; i < count; i++) {
    const j = i + pick.below(order.length - i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const chosen = order.slice(0, count).sort((a, b) => a - b);
  return chosen.map((i) => tools[i] as GeneratedTool);
}
