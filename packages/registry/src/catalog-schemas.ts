import type { Namespace, PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import { z } from "zod";
import { isNamespaceName } from "./namespace-name.js";
import { parseOrThrow } from "./validation.js";

/** Limits on what the catalog accepts, so one bad client cannot fill the store or the router's memory. */
export const CATALOG_LIMITS = {
  /** Tool, prompt and resource names; service names (a tool's `type`). */
  nameLength: 128,
  /** Descriptions. */
  descriptionLength: 16_384,
  /** URIs: a tool's `uri`, a resource's `location`, configuration and secrets URIs. */
  uriLength: 4096,
  /** Labels on one entry. */
  labelCount: 64,
  labelKeyLength: 128,
  labelValueLength: 256,
  /** Properties in a tool's input schema. */
  propertyCount: 512,
  /** Resource params and prompt arguments. */
  listLength: 256,
  /** Messages of a prompt. */
  messageCount: 256,
  /** The whole entry as JSON text. */
  documentBytes: 1_048_576,
} as const;

/**
 * Names of tools, prompts, resources and services: the characters MCP allows in tool names, which also keeps
 * them free of quotes, spaces, slashes and other metacharacters.
 */
const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
const NAME_RULE = `1 to ${CATALOG_LIMITS.nameLength} characters of A-Z, a-z, 0-9, '_', '.' and '-'`;
const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
const LABEL_KEY_PATTERN = /^[A-Za-z0-9_.\-/:]+$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what it refuses.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$/;

/**
 * The object without its `null` members. Wanaku's Java clients serialise an absent optional field as `null`
 * (`"namespace": null`, `"configurationURI": null`, a Property's `"target": null`); the catalog treats it as absent.
 */
function withoutNulls(input: unknown): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
}

/** A catalog name: tool, prompt, resource or service name. */
export const nameSchema = z
  .string()
  .min(1, `must not be empty (${NAME_RULE})`)
  .max(CATALOG_LIMITS.nameLength, `must be at most ${CATALOG_LIMITS.nameLength} characters`)
  .regex(NAME_PATTERN, `must consist of ${NAME_RULE}`);

/** A registration or entry id: a UUID or another short token. */
export const idSchema = z
  .string()
  .regex(ID_PATTERN, "must be 1 to 128 characters of A-Z, a-z, 0-9, '_', '.', ':' and '-'");

const namespaceSchema = z.string().refine(isNamespaceName, {
  message:
    "must be a DNS label (lower-case letters a-z, digits and '-', 1 to 63 characters, not starting or ending with '-'), or \"\" for the default namespace",
});

const descriptionSchema = z
  .string()
  .max(CATALOG_LIMITS.descriptionLength, `must be at most ${CATALOG_LIMITS.descriptionLength} characters`);

const uriSchema = z
  .string()
  .min(1, "must not be empty")
  .max(CATALOG_LIMITS.uriLength, `must be at most ${CATALOG_LIMITS.uriLength} characters`)
  .refine((s) => !CONTROL_CHARACTERS.test(s), { message: "must not contain control characters" })
  .refine((s) => !/\s/.test(s), { message: "must not contain whitespace" })
  .refine((s) => URI_SCHEME.test(s), {
    message: "must be a URI with a scheme (e.g. 'https://…', 'file:///…')",
  });

/** Optional URIs: Wanaku clients send "" for none, which is stored as absent. */
const optionalUriSchema = z
  .union([z.literal(""), uriSchema])
  .optional()
  .transform((s) => (s === "" ? undefined : s));

/** Labels on an entry. */
export const labelsSchema = z
  .record(
    z
      .string()
      .min(1, "label keys must not be empty")
      .max(
        CATALOG_LIMITS.labelKeyLength,
        `label keys must be at most ${CATALOG_LIMITS.labelKeyLength} characters`,
      )
      .regex(LABEL_KEY_PATTERN, "label keys must consist of A-Z, a-z, 0-9, '_', '.', '-', '/' and ':'"),
    z
      .string()
      .max(
        CATALOG_LIMITS.labelValueLength,
        `label values must be at most ${CATALOG_LIMITS.labelValueLength} characters`,
      )
      .refine((s) => !CONTROL_CHARACTERS.test(s), {
        message: "label values must not contain control characters",
      }),
  )
  .refine((labels) => Object.keys(labels).length <= CATALOG_LIMITS.labelCount, {
    message: `at most ${CATALOG_LIMITS.labelCount} labels are allowed`,
  });

const propertySchema = z.looseObject({
  type: z.string().max(64).optional(),
  description: descriptionSchema.optional(),
  target: z.enum(["header", "configuration", "cookie"]).optional(),
  scope: z.string().max(64).optional(),
  value: z.string().max(CATALOG_LIMITS.uriLength).optional(),
});

const inputSchemaSchema = z.looseObject({
  type: z.literal("object", { message: 'must be "object"' }).default("object"),
  properties: z
    .record(nameSchema, propertySchema)
    .refine((p) => Object.keys(p).length <= CATALOG_LIMITS.propertyCount, {
      message: `at most ${CATALOG_LIMITS.propertyCount} properties are allowed`,
    })
    .optional(),
  required: z.array(nameSchema).max(CATALOG_LIMITS.propertyCount).optional(),
});

const toolSchema = z.object({
  id: idSchema.optional(),
  name: nameSchema,
  description: descriptionSchema.optional(),
  uri: uriSchema,
  type: nameSchema,
  inputSchema: inputSchemaSchema.optional(),
  namespace: namespaceSchema.optional(),
  configurationURI: optionalUriSchema,
  secretsURI: optionalUriSchema,
  labels: labelsSchema.optional(),
});

const resourceSchema = z.object({
  id: idSchema.optional(),
  location: uriSchema,
  type: nameSchema,
  name: nameSchema,
  description: descriptionSchema.optional(),
  mimeType: z.string().max(255).regex(MIME_TYPE, "must be a media type such as 'text/plain'").optional(),
  params: z
    .array(
      z.object({
        name: nameSchema,
        value: z
          .string()
          .max(CATALOG_LIMITS.uriLength, `must be at most ${CATALOG_LIMITS.uriLength} characters`),
      }),
    )
    .max(CATALOG_LIMITS.listLength, `at most ${CATALOG_LIMITS.listLength} params are allowed`)
    .optional(),
  configurationURI: optionalUriSchema,
  secretsURI: optionalUriSchema,
  namespace: namespaceSchema.optional(),
  labels: labelsSchema.optional(),
});

const promptContentSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string().max(255).regex(MIME_TYPE) }),
  z.object({ type: z.literal("audio"), data: z.string(), mimeType: z.string().max(255).regex(MIME_TYPE) }),
  z.object({
    type: z.literal("resource"),
    resource: z.object({
      uri: uriSchema,
      mimeType: z.string().max(255).regex(MIME_TYPE).optional(),
      text: z.string().optional(),
      blob: z.string().optional(),
    }),
  }),
]);

const promptSchema = z.object({
  id: idSchema.optional(),
  name: nameSchema,
  description: descriptionSchema.optional(),
  messages: z
    .array(z.object({ role: z.enum(["user", "assistant"]), content: promptContentSchema }))
    .max(CATALOG_LIMITS.messageCount, `at most ${CATALOG_LIMITS.messageCount} messages are allowed`),
  arguments: z
    .array(
      z.object({
        name: nameSchema,
        description: descriptionSchema.optional(),
        required: z.boolean().optional(),
      }),
    )
    .max(CATALOG_LIMITS.listLength, `at most ${CATALOG_LIMITS.listLength} arguments are allowed`)
    .optional(),
  namespace: namespaceSchema.optional(),
  labels: labelsSchema.optional(),
});

const namespaceEntrySchema = z.object({
  id: idSchema.optional(),
  name: namespaceSchema,
  description: descriptionSchema.optional(),
  labels: labelsSchema.optional(),
});

/**
 * Validates a tool as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseTool(input: unknown): ToolReference {
  const tool = withoutNulls(input);
  const schema = (tool as { inputSchema?: { properties?: Record<string, unknown> } } | undefined)
    ?.inputSchema;
  if (schema && typeof schema === "object" && schema.properties && typeof schema.properties === "object") {
    const properties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties))
      properties[name] = withoutNulls(property);
    (tool as { inputSchema: unknown }).inputSchema = { ...schema, properties };
  }
  return parseOrThrow(toolSchema, tool, "tool", CATALOG_LIMITS.documentBytes) as ToolReference;
}

/**
 * Validates a resource as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseResource(input: unknown): ResourceReference {
  return parseOrThrow(
    resourceSchema,
    withoutNulls(input),
    "resource",
    CATALOG_LIMITS.documentBytes,
  ) as ResourceReference;
}

/**
 * Validates a prompt as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parsePrompt(input: unknown): PromptReference {
  return parseOrThrow(
    promptSchema,
    withoutNulls(input),
    "prompt",
    CATALOG_LIMITS.documentBytes,
  ) as PromptReference;
}

/**
 * Validates a namespace as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseNamespace(input: unknown): Namespace {
  return parseOrThrow(
    namespaceEntrySchema,
    withoutNulls(input),
    "namespace",
    CATALOG_LIMITS.documentBytes,
  ) as Namespace;
}
