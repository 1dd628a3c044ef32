import { createHash } from "node:crypto";

/**
 * A SHA-256 digest of a token, base64url: what caches are keyed by, so that no map, log line or heap dump
 * holds a token as a key.
 */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
