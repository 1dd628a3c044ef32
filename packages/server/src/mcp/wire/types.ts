/**
 * The MCP wire types the router's encoders work with, from one source: the zod schemas of the SDK v2's
 * `@modelcontextprotocol/core` (imported as types only, so none of them is built at run time). Those schemas
 * describe the newest shapes (2026-07-28, which the SDK v2 calls its neutral model); the published packages carry
 * no per-revision types (the SDK keeps its own 2025 wire views in a private package). So the views per revision are
 * here: the SDK's type without what the revision lacks, the way the SDK derives its 2025 views. The table
 * {@link ByRevision} is the type-level twin of `features()` in `revisions.ts`; the tests hold both to the official
 * JSON schema of each revision.
 */
import type {
  AnnotationsSchema,
  AudioContentSchema,
  CallToolResultSchema,
  CompleteResultSchema,
  ContentBlockSchema,
  DiscoverResultSchema,
  EmbeddedResourceSchema,
  GetPromptResultSchema,
  IconSchema,
  ImageContentSchema,
  ImplementationSchema,
  InitializeResultSchema,
  PromptArgumentSchema,
  PromptSchema,
  ReadResourceResultSchema,
  ResourceLinkSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  ResultSchema,
  ServerCapabilitiesSchema,
  TextContentSchema,
  ToolSchema,
} from "@modelcontextprotocol/core";
import type { JsonObject } from "@trestle/core";
import type { z } from "zod";
import type { McpRevision } from "./revisions.js";

/** The named fields of `T`: a loose schema's index signature dropped, so a built object is checked field by field. */
type Named<T> = { [P in keyof T as string extends P ? never : P]: T[P] };

/**
 * `T` without the fields `K`, for each member of a union. `Omit` would fold a loose type's named fields into its
 * index signature.
 */
export type Without<T, K extends PropertyKey> = T extends unknown
  ? { [P in keyof T as P extends K ? never : P]: T[P] }
  : never;

/** Any JSON object on the wire. */
export type WireObject = { [key: string]: unknown };

/** MCP `Annotations` on a content block or resource. */
export type McpAnnotations = z.output<typeof AnnotationsSchema>;
/** An MCP `Icon`. */
export type McpIcon = z.output<typeof IconSchema>;
/** A text content block. */
export type McpTextContent = z.output<typeof TextContentSchema>;
/** An image content block. */
export type McpImageContent = z.output<typeof ImageContentSchema>;
/** An audio content block (2025-03-26). */
export type McpAudioContent = z.output<typeof AudioContentSchema>;
/** An embedded resource content block. */
export type McpEmbeddedResource = z.output<typeof EmbeddedResourceSchema>;
/** A resource link content block (2025-06-18). */
export type McpResourceLink = z.output<typeof ResourceLinkSchema>;
/** One content block of a tool result or prompt message, in the newest shapes. */
export type McpContentBlock = z.output<typeof ContentBlockSchema>;

/**
 * The 2026-07-28 envelope of a result. The SDK v2 keeps `resultType` off its public types (its protocol layer adds
 * it) and has no caching hints; the router writes both itself.
 */
export interface ModernEnvelope {
  resultType?: string;
  ttlMs?: number;
  cacheScope?: "public" | "private";
}

/** A result of any method, in the newest shapes. */
export type McpResult = Named<z.output<typeof ResultSchema>> & ModernEnvelope & WireObject;
/** A `tools/call` result. */
export type McpCallToolResult = Named<z.output<typeof CallToolResultSchema>> & ModernEnvelope;
/** A `prompts/get` result. */
export type McpGetPromptResult = Named<z.output<typeof GetPromptResultSchema>> & ModernEnvelope;
/** A `resources/read` result. */
export type McpReadResourceResult = Named<z.output<typeof ReadResourceResultSchema>> & ModernEnvelope;
/** A `completion/complete` result. */
export type McpCompleteResult = Named<z.output<typeof CompleteResultSchema>> & ModernEnvelope;
/** An `initialize` result. */
export type McpInitializeResult = Named<z.output<typeof InitializeResultSchema>>;
/** A `server/discover` result. */
export type McpDiscoverResult = Named<z.output<typeof DiscoverResultSchema>> & ModernEnvelope;
/** What a server advertises. */
export type McpServerCapabilities = z.output<typeof ServerCapabilitiesSchema>;
/** An MCP `Implementation`: the router's `serverInfo`. */
export type McpImplementation = z.output<typeof ImplementationSchema>;

/** An MCP `Tool` as `tools/list` lists it. */
export type McpTool = z.output<typeof ToolSchema>;
/** An MCP `Resource` as `resources/list` lists it. */
export type McpResource = z.output<typeof ResourceSchema>;
/** An MCP `ResourceTemplate` as `resources/templates/list` lists it. */
export type McpResourceTemplate = z.output<typeof ResourceTemplateSchema>;
/**
 * An MCP `PromptArgument`. Its `title` (2025-06-18 on, from `BaseMetadata`) is on the wire but not in the SDK's
 * schema, which says so itself; an upstream may send it.
 */
export type McpPromptArgument = z.output<typeof PromptArgumentSchema> & { title?: string };
/** An MCP `Prompt` as `prompts/list` lists it. */
export type McpPrompt = Without<z.output<typeof PromptSchema>, "arguments"> & {
  arguments?: McpPromptArgument[];
};

/** The lists a server pages, by the key their result holds the items under. */
export interface ListedItems {
  tools: McpTool;
  resources: McpResource;
  resourceTemplates: McpResourceTemplate;
  prompts: McpPrompt;
}

/** Which list: `tools`, `resources`, `resourceTemplates` or `prompts`. */
export type ListKey = keyof ListedItems;

/** One page of a list result: its items under `K`, the next cursor and, for a stateless client, caching hints. */
export type McpListResult<K extends ListKey> = { [P in K]: ListedItems[K][] } & {
  nextCursor?: string;
  _meta?: WireObject;
} & ModernEnvelope;

/** A server-to-client notification (an extension's too: its method is not one the SDK lists). */
export interface McpNotification {
  method: string;
  params?: WireObject;
}

/* ------------------------------------------------------------------------------------ per-revision views */

/** What the session era's results carry none of. */
type SessionEnvelope = { resultType?: never; ttlMs?: never; cacheScope?: never };

/** A content block of a revision before 2025-06-18: no `_meta`. */
type EarlyBlock<T> = Without<T, "_meta">;

/**
 * Per revision: the content blocks its results carry, its `structuredContent`, its result envelope, and the fields
 * of a tool, of a resource, template or prompt, of an implementation, and of the capabilities that it lacks.
 */
interface ByRevision {
  "2024-11-05": {
    block: EarlyBlock<McpTextContent | McpImageContent | McpEmbeddedResource>;
    structured: never;
    envelope: SessionEnvelope;
    toolLacks: "title" | "annotations" | "outputSchema" | "icons" | "_meta" | "execution";
    entryLacks: "title" | "icons" | "_meta";
    implementationLacks: "title" | "icons" | "description" | "websiteUrl";
    capabilitiesLack: "completions" | "tasks" | "extensions";
  };
  "2025-03-26": {
    block: EarlyBlock<McpTextContent | McpImageContent | McpAudioContent | McpEmbeddedResource>;
    structured: never;
    envelope: SessionEnvelope;
    toolLacks: "title" | "outputSchema" | "icons" | "_meta" | "execution";
    entryLacks: "title" | "icons" | "_meta";
    implementationLacks: "title" | "icons" | "description" | "websiteUrl";
    capabilitiesLack: "tasks" | "extensions";
  };
  "2025-06-18": {
    block: McpContentBlock;
    structured: JsonObject;
    envelope: SessionEnvelope;
    toolLacks: "icons" | "execution";
    entryLacks: "icons";
    implementationLacks: "icons" | "description" | "websiteUrl";
    capabilitiesLack: "tasks" | "extensions";
  };
  "2025-11-25": {
    block: McpContentBlock;
    structured: JsonObject;
    envelope: SessionEnvelope;
    toolLacks: never;
    entryLacks: never;
    implementationLacks: never;
    capabilitiesLack: "extensions";
  };
  "2026-07-28": {
    block: McpContentBlock;
    structured: unknown;
    envelope: ModernEnvelope;
    toolLacks: "execution";
    entryLacks: never;
    implementationLacks: never;
    capabilitiesLack: "tasks";
  };
}

/** A content block as revision `R` defines it. */
export type ContentBlockIn<R extends McpRevision> = ByRevision[R]["block"];

/** A `tools/call` result as revision `R` defines it. */
export type CallToolResultIn<R extends McpRevision> = Without<
  McpCallToolResult,
  "content" | "structuredContent" | keyof ModernEnvelope
> & {
  content: ContentBlockIn<R>[];
  structuredContent?: ByRevision[R]["structured"];
} & ByRevision[R]["envelope"];

/** A `prompts/get` result as revision `R` defines it. */
export type GetPromptResultIn<R extends McpRevision> = Without<
  McpGetPromptResult,
  "messages" | keyof ModernEnvelope
> & {
  messages: { role: "user" | "assistant"; content: ContentBlockIn<R> }[];
} & ByRevision[R]["envelope"];

/** A `resources/read` result as revision `R` defines it. */
export type ReadResourceResultIn<R extends McpRevision> = Without<
  McpReadResourceResult,
  keyof ModernEnvelope
> &
  ByRevision[R]["envelope"];

/** A `completion/complete` result as revision `R` defines it. */
export type CompleteResultIn<R extends McpRevision> = Without<McpCompleteResult, keyof ModernEnvelope> &
  ByRevision[R]["envelope"];

/** A tool as revision `R` lists it. */
export type ToolIn<R extends McpRevision> = Without<McpTool, ByRevision[R]["toolLacks"]>;

/** A resource, resource template or prompt as revision `R` lists it. */
export type EntryIn<T, R extends McpRevision> = Without<T, ByRevision[R]["entryLacks"]>;

/** A page of list `K` as revision `R` defines it. */
export type ListResultIn<K extends ListKey, R extends McpRevision> = Without<
  McpListResult<K>,
  K | keyof ModernEnvelope
> & { [P in K]: (P extends "tools" ? ToolIn<R> : EntryIn<ListedItems[P], R>)[] } & ByRevision[R]["envelope"];

/** An implementation (`serverInfo`) as revision `R` defines it. */
export type ImplementationIn<R extends McpRevision> = Without<
  McpImplementation,
  ByRevision[R]["implementationLacks"]
>;

/** Server capabilities as revision `R` defines them. */
export type ServerCapabilitiesIn<R extends McpRevision> = Without<
  McpServerCapabilities,
  ByRevision[R]["capabilitiesLack"]
>;
