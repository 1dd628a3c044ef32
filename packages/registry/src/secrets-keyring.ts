import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { Code, TrestleError } from "@trestle/core";

/** The shortest secrets key accepted, in characters (`openssl rand -base64 32` makes 44). */
export const SECRETS_KEY_MIN_LENGTH = 32;

/** The algorithm of envelope version 1. */
const ALGORITHM = "aes-256-gcm";
/** GCM's recommended nonce length. */
const IV_BYTES = 12;
/** The whole GCM tag, always: a shorter one given to the decipher would be easier to forge. */
const TAG_BYTES = 16;

/**
 * A value sealed with AES-256-GCM, as the store keeps it: versioned, naming the key that sealed it (by an id
 * derived from the key, never the key), and bound to what it belongs to (the context, as associated data), so a
 * sealed value copied to another entry does not open there.
 */
export interface SealedValue {
  version: 1;
  algorithm: typeof ALGORITHM;
  /** Which key sealed it: {@link secretsKeyId} of that key. */
  keyId: string;
  /** base64url. */
  iv: string;
  /** base64url. */
  ciphertext: string;
  /** The GCM authentication tag, base64url. */
  tag: string;
}

/** Seals with the current key; opens with any key it holds. */
export interface SecretsKeyring {
  /** The id of the key new values are sealed with. */
  readonly keyId: string;
  /** Whether a value sealed with the key of this id can be opened. */
  holds(keyId: string): boolean;
  /** Seals `plaintext` for `context` (what it belongs to, such as an entry's id) with the current key. */
  seal(plaintext: string, context: string): SealedValue;
  /**
   * Opens a value sealed for `context`.
   * @throws TrestleError `FailedPrecondition` when the keyring lacks its key; `DataLoss` when it does not
   * authenticate (altered, or sealed for another context).
   */
  open(sealed: SealedValue, context: string): string;
}

function derive(key: string, info: string, length: number): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(key, "utf8"), "trestle secrets", info, length));
}

/**
 * The id of a secrets key: 16 hex digits derived from it (HKDF, apart from the encryption key), so that a sealed
 * value names its key and an operator can tell keys apart without either being shown.
 */
export function secretsKeyId(key: string): string {
  return derive(key, "key id", 8).toString("hex");
}

/** A new random secrets key: 32 random bytes, base64. */
export function generateSecretsKey(): string {
  return randomBytes(32).toString("base64");
}

/** True for a value shaped like a {@link SealedValue} (its contents are checked when it is opened). */
export function isSealedValue(value: unknown): value is SealedValue {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return (
    v.version === 1 &&
    v.algorithm === ALGORITHM &&
    typeof v.keyId === "string" &&
    typeof v.iv === "string" &&
    typeof v.ciphertext === "string" &&
    typeof v.tag === "string"
  );
}

/**
 * Creates a keyring from secrets keys: the first seals, every one opens (the others are older keys kept to read
 * what they sealed, while a rotation rewrites it). A key is any text of at least {@link SECRETS_KEY_MIN_LENGTH}
 * characters; the AES key is derived from it with HKDF-SHA256.
 *
 * @example
 * ```ts
 * const keyring = createSecretsKeyring([process.env.TRESTLE_SECRETS_KEY, previousKey]);
 * const sealed = keyring.seal(JSON.stringify({ env }), `forward:${id}`);
 * ```
 * @throws TrestleError `InvalidArgument` when there is no key or one is too short (the message never quotes a key).
 */
export function createSecretsKeyring(keys: readonly string[]): SecretsKeyring {
  if (keys.length === 0)
    throw new TrestleError("A secrets keyring needs at least one key", Code.InvalidArgument);
  const byId = new Map<string, Buffer>();
  keys.forEach((key, index) => {
    if (key.length < SECRETS_KEY_MIN_LENGTH) {
      throw new TrestleError(
        `Secrets key ${index + 1} is too short: a secrets key has at least ${SECRETS_KEY_MIN_LENGTH} characters (make one with \`openssl rand -base64 32\`)`,
        Code.InvalidArgument,
      );
    }
    const id = secretsKeyId(key);
    if (!byId.has(id)) byId.set(id, derive(key, "aes-256-gcm key v1", 32));
  });
  const currentId = secretsKeyId(keys[0] as string);
  const current = byId.get(currentId) as Buffer;
  return {
    keyId: currentId,
    holds: (keyId) => byId.has(keyId),
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return {
        version: 1,
        algorithm: ALGORITHM,
        keyId: currentId,
        iv: iv.toString("base64url"),
        ciphertext: ciphertext.toString("base64url"),
        tag: cipher.getAuthTag().toString("base64url"),
      };
    },
    open(sealed, context) {
      const key = byId.get(sealed.keyId);
      if (key === undefined) {
        throw new TrestleError(
          `A value was sealed with secrets key ${sealed.keyId}, which this router does not hold`,
          Code.FailedPrecondition,
        );
      }
      try {
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, "base64url"), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(Buffer.from(sealed.tag, "base64url"));
        return Buffer.concat([
          decipher.update(Buffer.from(sealed.ciphertext, "base64url")),
          decipher.final(),
        ]).toString("utf8");
      } catch (error) {
        throw new TrestleError(
          `A value sealed with secrets key ${sealed.keyId} did not authenticate: it was altered, or belongs elsewhere`,
          Code.DataLoss,
          { cause: error },
        );
      }
    },
  };
}
