/**
 * Server-to-client notifications per revision: a notification the client's revision lacks is not sent at all;
 * within one it has, the fields it lacks are dropped.
 */
import type { TranslationNote } from "@trestle/core";
import { type Encoded, finish, isPlainObject, NO_NOTES, note, omit } from "./encoded.js";
import { features, type McpRevision } from "./revisions.js";
import type { McpNotification } from "./types.js";

/** Server notifications some revisions lack: the revisions that define each. */
const NOTIFICATION_REVISIONS: Readonly<Record<string, readonly McpRevision[]>> = Object.freeze({
  "notifications/elicitation/complete": ["2025-11-25"],
  "notifications/tasks/status": ["2025-11-25"],
  "notifications/subscriptions/acknowledged": ["2026-07-28"],
});

/** Meta keys only 2026-07-28 defines on a notification. */
const MODERN_NOTIFICATION_META_KEYS: readonly string[] = ["io.modelcontextprotocol/subscriptionId"];

function withheld(method: string, detail: string): Encoded<undefined> {
  return { value: undefined, notes: [{ action: "dropped", what: method, detail }] };
}

/**
 * Encodes a server-to-client notification for `revision`. `value` is `undefined` when the revision has no such
 * notification (`notifications/elicitation/complete` and `notifications/tasks/status` outside 2025-11-25,
 * `notifications/subscriptions/acknowledged` before 2026-07-28, a `notifications/cancelled` without `requestId`
 * outside 2025-11-25): do not send it. The progress `message` is dropped before 2025-03-26; the 2026-07-28
 * `io.modelcontextprotocol/subscriptionId` meta key is removed before 2026-07-28. A method no revision defines
 * (an extension's, such as the 2026-07-28 tasks extension's `notifications/tasks`) passes unchanged.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeNotification(
  notification: McpNotification,
  revision: McpRevision,
): Encoded<McpNotification | undefined> {
  const f = features(revision);
  const { method, params } = notification;
  const only = NOTIFICATION_REVISIONS[method];
  if (only && !only.includes(revision))
    return withheld(method, `MCP revision ${revision} has no ${method} notification`);
  if (method === "notifications/cancelled" && revision !== "2025-11-25" && params?.requestId === undefined)
    return withheld(method, `MCP revision ${revision} requires requestId`);
  if (params === undefined) return { value: notification, notes: NO_NOTES };
  const notes: TranslationNote[] = [];
  let out = params;
  if (method === "notifications/progress" && !f.progressMessage && params.message !== undefined) {
    note(notes, "dropped", `${method} message`, `MCP revision ${revision} has no progress message`);
    out = omit(out, ["message"]);
  }
  const meta = params._meta;
  if (!f.modernEnvelope && isPlainObject(meta) && MODERN_NOTIFICATION_META_KEYS.some((key) => key in meta)) {
    const trimmed = omit(meta, MODERN_NOTIFICATION_META_KEYS);
    out = Object.keys(trimmed).length === 0 ? omit(out, ["_meta"]) : { ...out, _meta: trimmed };
  }
  return finish(out === params ? notification : { method, params: out }, notes);
}
