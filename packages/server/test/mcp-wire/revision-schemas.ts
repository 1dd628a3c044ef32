import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";
import { expect } from "vitest";
import { MCP_REVISIONS, type McpRevision } from "../../src/mcp/wire/revisions.js";

// ajv-formats is CommonJS: typed as its module object under NodeNext, its function at run time in some loaders.
type AddFormats = (ajv: Ajv | Ajv2020) => unknown;
const addFormats = ((addFormatsImport as unknown as { default?: AddFormats }).default ??
  addFormatsImport) as unknown as AddFormats;

type Schema = Record<string, unknown>;

function loadSchema(revision: McpRevision): Schema {
  const url = new URL(`../mcp-schemas/${revision}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Schema;
}

/**
 * The definitions whose objects the encoders produce. The official schemas leave every object open (no
 * `additionalProperties: false`), so a field an older revision lacks still validates; the strict variant closes
 * these objects so the tests also catch a newer field passed through to an older client.
 */
const CLOSED_DEFINITIONS = [
  "Annotations",
  "TextContent",
  "ImageContent",
  "AudioContent",
  "EmbeddedResource",
  "ResourceLink",
  "TextResourceContents",
  "BlobResourceContents",
  "Icon",
  "Tool",
  "ToolAnnotations",
  "Resource",
  "ResourceTemplate",
  "Prompt",
  "PromptArgument",
  "PromptMessage",
  "Implementation",
  "CallToolResult",
  "GetPromptResult",
  "ReadResourceResult",
  "ListToolsResult",
  "ListResourcesResult",
  "ListResourceTemplatesResult",
  "ListPromptsResult",
  "CompleteResult",
  "ServerCapabilities",
  "ProgressNotification",
  "ProgressNotificationParams",
  "LoggingMessageNotification",
  "LoggingMessageNotificationParams",
  "ResourceUpdatedNotification",
  "ResourceUpdatedNotificationParams",
  "CancelledNotification",
  "CancelledNotificationParams",
  "ElicitationCompleteNotification",
  "SubscriptionsAcknowledgedNotification",
  "SubscriptionsAcknowledgedNotificationParams",
];
/** Inline objects inside a closed definition that are closed too (2024-11-05 inlines annotations and params). */
const CLOSED_INLINE = ["annotations", "params", "completion"];

/**
 * Closes an object schema; `alsoAllowed` are keys the revision allows there without listing them: every
 * revision's base Notification allows `_meta` in params (2024-11-05 inlines params without it), and older
 * schemas leave `jsonrpc` out of the notification itself.
 */
function close(definition: Schema, alsoAllowed: string[]): void {
  if (typeof definition.properties !== "object" || definition.additionalProperties !== undefined) return;
  const properties = definition.properties as Record<string, Schema>;
  for (const key of alsoAllowed) properties[key] ??= {};
  definition.additionalProperties = false;
}

function strictVariant(schema: Schema): Schema {
  const copy = structuredClone(schema);
  const definitions = (copy.definitions ?? copy.$defs) as Record<string, Schema>;
  for (const name of CLOSED_DEFINITIONS) {
    const definition = definitions[name];
    if (!definition) continue;
    close(
      definition,
      name.endsWith("NotificationParams") ? ["_meta"] : name.endsWith("Notification") ? ["jsonrpc"] : [],
    );
    const properties = (definition.properties ?? {}) as Record<string, Schema>;
    for (const inline of CLOSED_INLINE) {
      const nested = properties[inline];
      if (nested && !nested.$ref) close(nested, inline === "params" ? ["_meta"] : []);
    }
  }
  return copy;
}

interface RevisionValidators {
  check(definition: string, value: unknown): string[];
}

function validatorsFor(revision: McpRevision): { official: RevisionValidators; strict: RevisionValidators } {
  const schema = loadSchema(revision);
  const make = (document: Schema): RevisionValidators => {
    const modern = "$defs" in document;
    const ajv = modern
      ? new Ajv2020({ strict: false, allErrors: true })
      : new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, "mcp.json");
    const compiled = new Map<string, ValidateFunction>();
    return {
      check(definition, value) {
        let validate = compiled.get(definition);
        if (!validate) {
          validate = ajv.compile({ $ref: `mcp.json#/${modern ? "$defs" : "definitions"}/${definition}` });
          compiled.set(definition, validate);
        }
        if (validate(value)) return [];
        return (validate.errors ?? []).map(
          (e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
        );
      },
    };
  };
  return { official: make(schema), strict: make(strictVariant(schema)) };
}

const validators = new Map<McpRevision, ReturnType<typeof validatorsFor>>();

/**
 * Asserts `value` is valid as `definition` in the official JSON schema of `revision` (`test/mcp-schemas/`) and in
 * its variant with closed objects.
 */
export function expectValid(revision: McpRevision, definition: string, value: unknown): void {
  let found = validators.get(revision);
  if (!found) {
    found = validatorsFor(revision);
    validators.set(revision, found);
  }
  expect(found.official.check(definition, value), `${revision} ${definition} (official schema)`).toEqual([]);
  expect(found.strict.check(definition, value), `${revision} ${definition} (closed objects)`).toEqual([]);
}

/** The schema definition of each server notification. */
export const NOTIFICATION_DEFINITIONS: Readonly<Record<string, string>> = {
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/cancelled": "CancelledNotification",
  "notifications/elicitation/complete": "ElicitationCompleteNotification",
  "notifications/tasks/status": "TaskStatusNotification",
  "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
};

/** The revisions before the newest. */
export const OLDER_REVISIONS: readonly McpRevision[] = MCP_REVISIONS.slice(0, -1);

/**
 * `value` as a client of `revision` receives it: a stateless (2026-07-28) result with the `resultType` the
 * dispatcher stamps on it (the encoders leave it to that one copy).
 */
export function asSent(revision: McpRevision, value: object): object {
  if (revision !== "2026-07-28") return value;
  const sent: { resultType?: unknown } = { resultType: "complete", ...value };
  sent.resultType ??= "complete";
  return sent;
}
