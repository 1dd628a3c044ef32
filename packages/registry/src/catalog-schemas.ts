import type { PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import type { ForwardReference, Namespace } from "@trestle/core/catalog";
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
  // JSON Schema allows a list of types (["string", "null"]), which MCP servers' schemas use.
  type: z.union([z.string().max(64), z.array(z.string().max(64)).max(16)]).optional(),
  description: descriptionSchema.optional(),
  target: z.enum(["header", "configuration", "cookie"]).optional(),
  scope: z.string().max(64).optional(),
  value: z.string().max(CATALOG_LIMITS.uriLength).optional(),
});

/**
 * A property name of an input schema: any JSON object key (MCP servers use spaces, '/' and ':' in them), without
 * control characters.
 */
const propertyNameSchema = z
  .string()
  .min(1, "property names must not be empty")
  .max(CATALOG_LIMITS.nameLength, `property names must be at most ${CATALOG_LIMITS.nameLength} characters`)
  .refine((s) => !CONTROL_CHARACTERS.test(s), {
    message: "property names must not contain control characters",
  });

const inputSchemaSchema = z.looseObject({
  type: z.literal("object", { message: 'must be "object"' }).default("object"),
  properties: z
    .record(propertyNameSchema, propertySchema)
    .refine((p) => Object.keys(p).length <= CATALOG_LIMITS.propertyCount, {
      message: `at most ${CATALOG_LIMITS.propertyCount} properties are allowed`,
    })
    .optional(),
  required: z.array(propertyNameSchema).max(CATALOG_LIMITS.propertyCount).optional(),
});

/** A tool as the catalog holds it (the registry's one definition; the management API documents it as `Tool`). */
export const toolSchema = z
  .object({
    id: idSchema.optional(),
    name: nameSchema,
    description: descriptionSchema.optional(),
    uri: uriSchema,
    type: nameSchema,
    inputSchema: inputSchemaSchema.optional(),
    title: z
      .string()
      .max(CATALOG_LIMITS.nameLength * 2)
      .optional(),
    outputSchema: z.looseObject({ type: z.literal("object", { message: 'must be "object"' }) }).optional(),
    annotations: z.record(z.string().max(CATALOG_LIMITS.nameLength), z.unknown()).optional(),
    taskSupport: z
      .enum(["forbidden", "optional", "required"])
      .optional()
      .describe(
        "Whether calls may run as MCP tasks (the io.modelcontextprotocol/tasks extension) for clients that declare it: optional, required (clients without the extension are refused with -32021), forbidden (the default)",
      ),
    namespace: namespaceSchema.optional(),
    configurationURI: optionalUriSchema,
    secretsURI: optionalUriSchema,
    labels: labelsSchema.optional(),
  })
  .meta({ id: "Tool" });

/** A resource as the catalog holds it (`Resource` in the management API). */
export const resourceSchema = z
  .object({
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
  })
  .meta({ id: "Resource" });

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

/** A prompt as the catalog holds it (`Prompt` in the management API). */
export const promptSchema = z
  .object({
    id: idSchema.optional(),
    name: nameSchema,
    description: descriptionSchema.optional(),
    type: nameSchema.optional(),
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
  })
  .meta({ id: "Prompt" });

/** Forward names stay short, since a forward's service name is built from its namespace and name. */
const FORWARD_NAME_LENGTH = 48;
const FORWARD_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const stringMapSchema = (what: string) =>
  z
    .record(
      z.string().min(1).max(256),
      z
        .string()
        .max(
          CATALOG_LIMITS.uriLength,
          `${what} values must be at most ${CATALOG_LIMITS.uriLength} characters`,
        ),
    )
    .refine((m) => Object.keys(m).length <= CATALOG_LIMITS.labelCount, {
      message: `at most ${CATALOG_LIMITS.labelCount} ${what} are allowed`,
    });

/** One string or a few (a token exchange's audiences, resources, scopes). */
const oneOrMoreSchema = z.union([
  z.string().min(1).max(CATALOG_LIMITS.uriLength),
  z.array(z.string().min(1).max(CATALOG_LIMITS.uriLength)).min(1).max(16),
]);

/** An http(s) URL; plain http only on a loopback address (a token endpoint carries a client secret). */
const tokenEndpointSchema = z
  .string()
  .max(CATALOG_LIMITS.uriLength)
  .refine(
    (s) =>
      /^https:\/\/[^\s]+$/i.test(s) ||
      /^http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/[^\s]*)?$/i.test(s),
    { message: "must be an https URL (http only on a loopback address)" },
  );

/**
 * The router's own credential for a forward's upstream (`UpstreamAuth`): a static header, or an RFC 8693 token
 * exchange of each caller's OAuth token. Stored sealed with the rest of the upstream.
 */
const upstreamAuthSchema = z.union(
  [
    z.strictObject({
      static: z.strictObject({
        header: z
          .string()
          .min(1)
          .max(256)
          .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "must be an HTTP header name")
          .optional(),
        value: z.string().min(1).max(CATALOG_LIMITS.uriLength),
      }),
    }),
    z.strictObject({
      tokenExchange: z.strictObject({
        tokenEndpoint: tokenEndpointSchema,
        clientId: z.string().min(1).max(CATALOG_LIMITS.nameLength),
        clientSecret: z.string().min(1).max(CATALOG_LIMITS.uriLength),
        clientAuth: z.enum(["client_secret_basic", "client_secret_post"]).optional(),
        audience: oneOrMoreSchema.optional(),
        resource: oneOrMoreSchema.optional(),
        scope: oneOrMoreSchema.optional(),
      }),
    }),
  ],
  { error: 'must be { "static": { "value": … } } or { "tokenExchange": { "tokenEndpoint": …, … } }' },
);

/**
 * A stdio server is spoken to over one process's stdin and stdout: there are no per-call headers to carry a
 * credential, and one process serves every caller, so no caller's exchanged token could be kept to that caller.
 */
const stdioUpstreamAuthSchema = z
  .unknown()
  .refine((value) => value === undefined, {
    message:
      "a stdio forward cannot take upstreamAuth (static or tokenExchange): its requests carry no per-call headers; give the server its own credential in env, or forward to it over http",
  })
  .optional()
  .describe(
    "Refused: a stdio server takes no per-call credential (upstreamAuth is for http and a2a upstreams)",
  );

const forwardUpstreamSchema = z.discriminatedUnion(
  "kind",
  [
    z.object({
      kind: z.literal("stdio"),
      command: z
        .string()
        .min(1, "must name the program to run")
        .max(CATALOG_LIMITS.uriLength)
        .refine((s) => !CONTROL_CHARACTERS.test(s), { message: "must not contain control characters" }),
      args: z.array(z.string().max(CATALOG_LIMITS.uriLength)).max(CATALOG_LIMITS.listLength).optional(),
      env: stringMapSchema("environment variables").optional(),
      cwd: z.string().min(1).max(CATALOG_LIMITS.uriLength).optional(),
      mode: z.enum(["pooled", "per-call"]).optional(),
      sandbox: z.boolean().optional(),
      writablePaths: z
        .array(
          z
            .string()
            .max(CATALOG_LIMITS.uriLength)
            .refine((s) => s.startsWith("/"), { message: "must be an absolute path" }),
        )
        .max(CATALOG_LIMITS.listLength)
        .optional(),
      // Named so that it is refused with a reason rather than dropped as an unknown key.
      upstreamAuth: stdioUpstreamAuthSchema,
    }),
    z.object({
      kind: z.literal("http"),
      url: z
        .string()
        .max(CATALOG_LIMITS.uriLength)
        .refine((s) => /^https?:\/\/[^\s]+$/i.test(s), { message: "must be an http:// or https:// URL" }),
      headers: stringMapSchema("headers").optional(),
      upstreamAuth: upstreamAuthSchema.optional(),
    }),
    z.object({
      kind: z.literal("a2a"),
      url: z
        .string()
        .max(CATALOG_LIMITS.uriLength)
        .refine((s) => /^https?:\/\/[^\s]+$/i.test(s), { message: "must be an http:// or https:// URL" }),
      headers: stringMapSchema("headers").optional(),
      upstreamAuth: upstreamAuthSchema.optional(),
    }),
  ],
  {
    error:
      'must be { "kind": "stdio", "command": … }, { "kind": "http", "url": … } or { "kind": "a2a", "url": … }',
  },
);

/** A forward's start or handshake timeout: at least a second, at most ten minutes. */
const forwardTimeoutSchema = z
  .number()
  .int()
  .min(1_000, "must be at least 1000 ms")
  .max(600_000, "must be at most 600000 ms (ten minutes)");

/**
 * A forward as the catalog holds it, with its upstream in full (`Forward` in the management API's requests;
 * answers show it without secrets). Only the canonical `upstream` object: the management API's short forms
 * are expanded at the API edge.
 */
export const forwardSchema = z
  .object({
    id: idSchema.optional(),
    name: z
      .string()
      .min(1, "must not be empty")
      .max(FORWARD_NAME_LENGTH, `must be at most ${FORWARD_NAME_LENGTH} characters`)
      .regex(FORWARD_NAME, "must start with a letter or digit and consist of A-Z, a-z, 0-9, '_' and '-'"),
    description: descriptionSchema.optional(),
    namespace: namespaceSchema.optional(),
    upstream: forwardUpstreamSchema,
    prefix: z
      .string()
      .max(32, "must be at most 32 characters")
      .regex(/^[A-Za-z0-9_.-]*$/, "must consist of A-Z, a-z, 0-9, '_', '.' and '-'")
      .optional(),
    labels: labelsSchema.optional(),
    startTimeoutMs: forwardTimeoutSchema.optional(),
    handshakeTimeoutMs: forwardTimeoutSchema.optional(),
  })
  .meta({ id: "Forward" });

/** A namespace (`Namespace` in the management API). */
export const namespaceEntrySchema = z
  .object({
    id: idSchema.optional(),
    name: namespaceSchema,
    description: descriptionSchema.optional(),
    labels: labelsSchema.optional(),
  })
  .meta({ id: "Namespace" });

/**
 * A tool as a client sends it: Wanaku's Java clients write an absent optional field as `null`, in the tool and in
 * each input-schema property, and those are read as absent. A field the tool does not have is refused, naming it
 * (a misspelt `descripton` would otherwise be dropped without a word); input-schema properties keep every
 * JSON Schema keyword.
 */
export const toolInputSchema = z.preprocess(knownFieldsOnly(toolSchema, toolWithoutNulls), toolSchema);
/** A resource as a client sends it (`null` members read as absent; unknown fields refused). */
export const resourceInputSchema = z.preprocess(
  knownFieldsOnly(resourceSchema, withoutNulls),
  resourceSchema,
);
/** A prompt as a client sends it (`null` members read as absent; unknown fields refused). */
export const promptInputSchema = z.preprocess(knownFieldsOnly(promptSchema, withoutNulls), promptSchema);
/** A namespace as a client sends it (`null` members read as absent; unknown fields refused). */
export const namespaceInputSchema = z.preprocess(
  knownFieldsOnly(namespaceEntrySchema, withoutNulls),
  namespaceEntrySchema,
);
/** A forward as a client sends it (`null` members read as absent; the upstream as an object; unknown fields refused). */
export const forwardInputSchema = z.preprocess(knownFieldsOnly(forwardSchema, withoutNulls), forwardSchema);

/**
 * `clean` (the `null` members dropped), with an issue for each field `schema` does not have: the entry's schema
 * stays the one documented (a `$ref` in the OpenAPI document), and a misspelt field is refused by name.
 */
function knownFieldsOnly(
  schema: z.ZodObject,
  clean: (input: unknown) => unknown,
): (input: unknown, context: { issues: z.core.$ZodRawIssue[] }) => unknown {
  const known = new Set(Object.keys(schema.shape));
  return (input, context) => {
    const cleaned = clean(input);
    if (cleaned === null || typeof cleaned !== "object" || Array.isArray(cleaned)) return cleaned;
    const unknown = Object.keys(cleaned).filter((key) => !known.has(key));
    if (unknown.length > 0) {
      context.issues.push({
        code: "unrecognized_keys",
        keys: unknown,
        input: cleaned as Record<string, unknown>,
        message: `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `'${k}'`).join(", ")}`,
      });
    }
    return cleaned;
  };
}

/** The tool without its `null` members, nor its input-schema properties'. */
function toolWithoutNulls(input: unknown): unknown {
  const tool = withoutNulls(input);
  const schema = (tool as { inputSchema?: { properties?: Record<string, unknown> } } | undefined)
    ?.inputSchema;
  if (schema && typeof schema === "object" && schema.properties && typeof schema.properties === "object") {
    const properties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties))
      properties[name] = withoutNulls(property);
    return { ...(tool as object), inputSchema: { ...schema, properties } };
  }
  return tool;
}

/**
 * Validates a tool as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseTool(input: unknown): ToolReference {
  return parseOrThrow(toolInputSchema, input, "tool", CATALOG_LIMITS.documentBytes) as ToolReference;
}

/**
 * Validates a resource as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseResource(input: unknown): ResourceReference {
  return parseOrThrow(
    resourceInputSchema,
    input,
    "resource",
    CATALOG_LIMITS.documentBytes,
  ) as ResourceReference;
}

/**
 * Validates a prompt as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parsePrompt(input: unknown): PromptReference {
  return parseOrThrow(promptInputSchema, input, "prompt", CATALOG_LIMITS.documentBytes) as PromptReference;
}

/**
 * Validates a namespace as it arrives from a client.
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseNamespace(input: unknown): Namespace {
  return parseOrThrow(namespaceInputSchema, input, "namespace", CATALOG_LIMITS.documentBytes) as Namespace;
}

/**
 * Validates a forward as it arrives from a client, its upstream as an object. Messages name the bad field, never
 * its value (a forward's arguments, environment and headers hold secrets).
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseForward(input: unknown): ForwardReference {
  return parseOrThrow(forwardInputSchema, input, "forward", CATALOG_LIMITS.documentBytes) as ForwardReference;
}

/**
 * Validates `input` with `schema` as the catalog validates its entries, for the management API's edge: one
 * `InvalidArgument` error that names every bad field (`Invalid ${what}: name: must …`), and refuses a value that
 * is not a JSON object, larger than `maxBytes` as JSON, or holding a NUL character.
 * @throws TrestleError `InvalidArgument`.
 */
export function parseWithSchema<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  maxBytes: number,
): z.output<S> {
  return parseOrThrow(schema, input, what, maxBytes);
}
