import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

/** Seals values so that only a router holding the same key can read them back, and nobody can change them. */
export interface SealedBox {
  /** `value` as JSON, encrypted and authenticated (AES-256-GCM), as base64url text. */
  seal(value: unknown): string;
  /** The value of a text {@link SealedBox.seal} made with the same key; `undefined` when it was altered or is foreign. */
  open(text: string): unknown;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A box keyed by `purpose` under `secret` (replicas that share the secret open each other's seals; each purpose gets
 * a key of its own, so a seal made for one use is not accepted for another). Without a secret the key is made for
 * this process alone.
 */
export function createSealedBox(purpose: string, secret?: string | Buffer): SealedBox {
  const key = secret === undefined ? randomBytes(32) : createHmac("sha256", secret).update(purpose).digest();
  return {
    seal(value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(value) ?? "null", "utf8"), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    open(text) {
      try {
        const sealed = Buffer.from(text, "base64url");
        if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
        const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, IV_BYTES));
        decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        const body = Buffer.concat([
          decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]);
        return JSON.parse(body.toString("utf8")) as unknown;
      } catch {
        return undefined;
      }
    },
  };
}
