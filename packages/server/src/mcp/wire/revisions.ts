/**
 * What each MCP revision the router serves can say, as one table derived from the revisions' order. Every encoder
 * under `wire/` asks this table, never a revision's name; the types in `types.ts` say the same per revision.
 */
import { Code, TrestleError } from "@trestle/core";
import { MCP_REVISIONS, type McpRevision } from "../protocol-era.js";

export { MCP_REVISIONS, type McpRevision };

/** The newest revision the router serves: its shapes are the encoders' input. */
export const LATEST_MCP_REVISION: McpRevision = "2026-07-28";

/**
 * The revision a client of the session era gets until it names one (a stdio client that has not sent
 * `initialize`, a stateless legacy request): the newest of that era.
 */
export const NEWEST_SESSION_REVISION: McpRevision = "2025-11-25";

/**
 * The revision a client speaks, from what it declared (a stateless request's `_meta` version, a session's
 * negotiated one): {@link NEWEST_SESSION_REVISION} when it declared none the router serves.
 */
export function revisionOf(declared: string | undefined): McpRevision {
  return isMcpRevision(declared) ? declared : NEWEST_SESSION_REVISION;
}

/** Whether `value` names a revision in {@link MCP_REVISIONS}. */
export function isMcpRevision(value: unknown): value is McpRevision {
  return typeof value === "string" && (MCP_REVISIONS as readonly string[]).includes(value);
}

/**
 * Whether `revision` is `minimum` or newer. Revisions are ISO dates, so their order is the order of the strings.
 *
 * @example isAtLeast("2025-06-18", "2025-03-26") // true
 */
export function isAtLeast(revision: McpRevision, minimum: McpRevision): boolean {
  return revision >= minimum;
}

/** What a revision can say. */
export interface Features {
  readonly revision: McpRevision;
  /** `audio` content (2025-03-26). */
  readonly audio: boolean;
  /** The `completions` server capability (2025-03-26). */
  readonly completions: boolean;
  /** Tool `annotations` (2025-03-26). */
  readonly toolAnnotations: boolean;
  /** `message` on progress notifications (2025-03-26). */
  readonly progressMessage: boolean;
  /** `resource_link` content (2025-06-18). */
  readonly resourceLink: boolean;
  /** `title` on tools, resources, templates, prompts, prompt arguments and implementations (2025-06-18). */
  readonly titles: boolean;
  /** `_meta` on content blocks, resource contents, tools, resources, templates and prompts (2025-06-18). */
  readonly nestedMeta: boolean;
  /** `annotations.lastModified` (2025-06-18). */
  readonly lastModified: boolean;
  /** `structuredContent`: absent, a JSON object only (2025-06-18), any JSON value (2026-07-28). */
  readonly structuredContent: "none" | "object" | "any";
  /** Tool `outputSchema`: absent, `type: "object"` only (2025-06-18), any JSON Schema (2026-07-28). */
  readonly outputSchema: "none" | "object" | "any";
  /** `icons` (2025-11-25). */
  readonly icons: boolean;
  /** `description` and `websiteUrl` on an implementation (2025-11-25). */
  readonly implementationDetails: boolean;
  /** Tool `execution.taskSupport`: experimental tasks in core, 2025-11-25 only. */
  readonly toolExecution: boolean;
  /** The stateless envelope: `resultType`, `ttlMs`/`cacheScope`, `io.modelcontextprotocol/*` meta keys (2026-07-28). */
  readonly modernEnvelope: boolean;
  /** Boolean schemas as property schemas in `inputSchema`/`outputSchema` (2026-07-28 allows any JSON Schema). */
  readonly booleanSchemas: boolean;
}

function featuresOf(revision: McpRevision): Features {
  const since = (minimum: McpRevision) => isAtLeast(revision, minimum);
  const modern = since("2026-07-28");
  return Object.freeze({
    revision,
    audio: since("2025-03-26"),
    completions: since("2025-03-26"),
    toolAnnotations: since("2025-03-26"),
    progressMessage: since("2025-03-26"),
    resourceLink: since("2025-06-18"),
    titles: since("2025-06-18"),
    nestedMeta: since("2025-06-18"),
    lastModified: since("2025-06-18"),
    structuredContent: modern ? "any" : since("2025-06-18") ? "object" : "none",
    outputSchema: modern ? "any" : since("2025-06-18") ? "object" : "none",
    icons: since("2025-11-25"),
    implementationDetails: since("2025-11-25"),
    toolExecution: revision === "2025-11-25",
    modernEnvelope: modern,
    booleanSchemas: modern,
  });
}

/** Per revision, what it can say (every revision listed: the type checker holds the table complete). */
const FEATURES: Readonly<Record<McpRevision, Features>> = Object.freeze({
  "2024-11-05": featuresOf("2024-11-05"),
  "2025-03-26": featuresOf("2025-03-26"),
  "2025-06-18": featuresOf("2025-06-18"),
  "2025-11-25": featuresOf("2025-11-25"),
  "2026-07-28": featuresOf("2026-07-28"),
});

/**
 * What `revision` can say.
 *
 * @throws TrestleError `invalid_argument` for a revision the router does not serve, naming those it does.
 */
export function features(revision: McpRevision): Features {
  // A revision from outside the type checker's view (a client's string) may name none of them.
  const found: Features | undefined = FEATURES[revision];
  if (!found) {
    throw new TrestleError(
      `Unknown MCP revision '${String(revision)}'; known revisions: ${MCP_REVISIONS.join(", ")}`,
      Code.InvalidArgument,
    );
  }
  return found;
}
