/**
 * How the router presents itself, per revision: its `serverInfo` (an MCP `Implementation`) and its capabilities,
 * in the `initialize` result of a session's revision and in the 2026-07-28 `server/discover` result.
 */
import type { TranslationNote } from "@trestle/core";
import { type Encoded, finish, NO_NOTES, note, omit } from "./encoded.js";
import { encodeEnvelope } from "./envelope.js";
import { trimIcons, trimTitle } from "./fields.js";
import { features, type McpRevision } from "./revisions.js";
import type {
  ImplementationIn,
  McpDiscoverResult,
  McpImplementation,
  McpInitializeResult,
  McpServerCapabilities,
  ServerCapabilitiesIn,
} from "./types.js";

/** The implementation fields 2025-11-25 added. */
const IMPLEMENTATION_DETAILS = ["description", "websiteUrl"] as const;

/**
 * Encodes an implementation (the router's `serverInfo`) for `revision`: `title` before 2025-06-18 and `icons`,
 * `description`, `websiteUrl` before 2025-11-25 are dropped. `label` names it in the notes.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeImplementation<R extends McpRevision>(
  implementation: McpImplementation,
  revision: R,
  label?: string,
): Encoded<ImplementationIn<R>>;
export function encodeImplementation(
  implementation: McpImplementation,
  revision: McpRevision,
  label = "serverInfo",
): Encoded<McpImplementation> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  let out = trimIcons(trimTitle(implementation, f, label, notes), f, label, notes);
  if (!f.implementationDetails) {
    const present = IMPLEMENTATION_DETAILS.filter((key) => implementation[key] !== undefined);
    if (present.length > 0) {
      for (const key of present)
        note(notes, "dropped", `${label} ${key}`, `MCP revision ${f.revision} has no ${key} here`);
      out = omit(out, present);
    }
  }
  return finish(out, notes);
}

/**
 * Encodes the router's capabilities for `revision`: `completions` before 2025-03-26, `tasks` outside 2025-11-25
 * (2026-07-28 declares the tasks extension under `extensions` instead) and `extensions` before 2026-07-28 are
 * removed. No notes: a client cannot use a capability its revision lacks, so nothing it could see is lost.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeServerCapabilities<R extends McpRevision>(
  capabilities: McpServerCapabilities,
  revision: R,
): Encoded<ServerCapabilitiesIn<R>>;
export function encodeServerCapabilities(
  capabilities: McpServerCapabilities,
  revision: McpRevision,
): Encoded<McpServerCapabilities> {
  const f = features(revision);
  const absent: string[] = [];
  if (!f.completions && capabilities.completions !== undefined) absent.push("completions");
  if (!f.toolExecution && capabilities.tasks !== undefined) absent.push("tasks");
  if (!f.modernEnvelope && capabilities.extensions !== undefined) absent.push("extensions");
  return { value: absent.length === 0 ? capabilities : omit(capabilities, absent), notes: NO_NOTES };
}

/**
 * Encodes an `initialize` result for the revision it negotiated (its `protocolVersion`, which must be one the
 * router serves): `serverInfo` and `capabilities` as that revision defines them.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeInitializeResult(
  result: McpInitializeResult,
  revision: McpRevision,
): Encoded<McpInitializeResult> {
  const serverInfo = encodeImplementation(result.serverInfo, revision);
  const capabilities = encodeServerCapabilities(result.capabilities, revision).value;
  if (serverInfo.value === result.serverInfo && capabilities === result.capabilities)
    return { value: result, notes: serverInfo.notes };
  return { value: { ...result, serverInfo: serverInfo.value, capabilities }, notes: serverInfo.notes };
}

/**
 * A `server/discover` result as the router answers it: besides the `_meta` key the revision defines for it (which
 * the dispatcher stamps on every stateless result), the router names itself in a `serverInfo` field, as in its
 * `initialize` result.
 */
export type DiscoverAnswer = McpDiscoverResult & { serverInfo: McpImplementation };

/**
 * Encodes a `server/discover` result (2026-07-28 and later): `serverInfo` and `capabilities` as the revision
 * defines them, and the caching hints it requires (`0`/`"private"` when absent).
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeDiscoverResult(result: DiscoverAnswer, revision: McpRevision): Encoded<DiscoverAnswer> {
  const f = features(revision);
  const serverInfo = encodeImplementation(result.serverInfo, revision);
  const capabilities = encodeServerCapabilities(result.capabilities, revision).value;
  const out =
    serverInfo.value === result.serverInfo && capabilities === result.capabilities
      ? result
      : { ...result, serverInfo: serverInfo.value, capabilities };
  return { value: encodeEnvelope(out, f, true), notes: serverInfo.notes };
}
