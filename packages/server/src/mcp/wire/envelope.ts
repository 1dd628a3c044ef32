/**
 * The envelope of a result, per revision: the fields 2026-07-28 adds around every result (`resultType`, the
 * caching hints `ttlMs` and `cacheScope`, the `io.modelcontextprotocol/serverInfo` meta key) and that a session-era
 * client must not receive.
 */
import { Code, TrestleError } from "@trestle/core";
import { type Encoded, NO_NOTES, omit } from "./encoded.js";
import { type Features, features, type McpRevision } from "./revisions.js";
import type { McpResult, ModernEnvelope, WireObject } from "./types.js";

/** Meta keys only the 2026-07-28 envelope defines; an older client gets neither. */
export const MODERN_RESULT_META_KEYS: readonly string[] = ["io.modelcontextprotocol/serverInfo"];

/** Whether `meta` holds a key only 2026-07-28 defines. */
function hasModernMeta(meta: WireObject | undefined): boolean {
  if (meta === undefined) return false;
  for (const key of MODERN_RESULT_META_KEYS) if (key in meta) return true;
  return false;
}

/**
 * `result` with the envelope of the revision `f` describes. For 2026-07-28, a `cacheable` result (a list or a read)
 * gets `ttlMs`/`cacheScope` filled with the most conservative hints, `0` and `"private"`, when the caller gave none;
 * `resultType` is not added here: the dispatcher stamps it with the router's `serverInfo` on every stateless result,
 * in the one copy that costs. Older revisions get none of these fields, nor the 2026-07-28 `_meta` keys. Lossless
 * both ways: an older client treats every result as complete and caches nothing.
 *
 * @throws TrestleError `invalid_argument` for a `resultType` other than `complete` and a session-era revision.
 */
export function encodeEnvelope<T extends ModernEnvelope & { _meta?: WireObject | undefined }>(
  result: T,
  f: Features,
  cacheable: boolean,
): T {
  if (f.modernEnvelope) {
    if (!cacheable || (result.ttlMs !== undefined && result.cacheScope !== undefined)) return result;
    // Defaults first, then the result's own fields: V8 (Node 20) is many times slower when a key is added to a
    // spread copy afterwards. The `??=` lines only catch keys present with the value `undefined`.
    const copy: T = { ttlMs: 0, cacheScope: "private", ...result };
    copy.ttlMs ??= 0;
    copy.cacheScope ??= "private";
    return copy;
  }
  const resultType = result.resultType;
  if (resultType !== undefined && resultType !== "complete") {
    throw new TrestleError(
      `A result of type '${resultType}' has no encoding in MCP revision ${f.revision}: a session-era client ` +
        "gets input requests as server-to-client requests, not as a result",
      Code.InvalidArgument,
    );
  }
  const meta = result._meta;
  const modernMeta = hasModernMeta(meta);
  if (
    resultType === undefined &&
    result.ttlMs === undefined &&
    result.cacheScope === undefined &&
    !modernMeta
  ) {
    return result;
  }
  const copy = omit(result, ["resultType", "ttlMs", "cacheScope"]);
  if (modernMeta && meta) {
    const trimmed = omit(meta, MODERN_RESULT_META_KEYS);
    if (Object.keys(trimmed).length === 0) delete copy._meta;
    else copy._meta = trimmed;
  }
  return copy;
}

/**
 * Encodes a result that has nothing of its own to translate (an empty result, a task handle, `input_required` for
 * a 2026-07-28 client): only the envelope changes, so no notes.
 *
 * @throws TrestleError `invalid_argument` for an `input_required` or task result and a revision before 2026-07-28,
 *   or for an unknown revision.
 */
export function encodeResult<T extends McpResult>(result: T, revision: McpRevision): Encoded<T> {
  return { value: encodeEnvelope(result, features(revision), false), notes: NO_NOTES };
}
