import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http2";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { CAPABILITY_SECRET_METADATA_KEY } from "@trestle/wanaku";

/**
 * What a refused caller is told. The same words whether the secret was missing or wrong, and never what was
 * sent: an answer that differs, or echoes, helps whoever is guessing.
 */
const REFUSAL_MESSAGE = `This capability service requires its call secret in the ${CAPABILITY_SECRET_METADATA_KEY} metadata`;

/** Checks the call secret a caller presents; see {@link createCallSecretCheck}. */
export interface CallSecretCheck {
  /** True when `presented` is the secret. Takes the same time whatever `presented` is. */
  accepts(presented: string | undefined): boolean;
  /** The error a refused call fails with: `UNAUTHENTICATED`, with {@link CallSecretCheck.refusalMessage}. */
  refusal(): ConnectError;
  /** What a refused caller is told: it quotes nothing sent. */
  readonly refusalMessage: string;
  /** A Connect interceptor that refuses, before any handler runs, a call without the secret. */
  connectInterceptor: Interceptor;
  /** True when a gRPC call's HTTP/2 request headers carry the secret. */
  acceptsGrpc(headers: IncomingHttpHeaders): boolean;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * The check of a capability's call secret. Both sides are hashed before `timingSafeEqual`, so the comparison
 * takes the same time whatever the length or content of what was sent, and the secret's length does not leak.
 *
 * @throws Error when `secret` is empty: an empty secret would look set and protect nothing.
 */
export function createCallSecretCheck(secret: string): CallSecretCheck {
  if (secret === "") throw new Error("callSecret must not be empty");
  const expected = digest(secret);
  const accepts = (presented: string | undefined) =>
    // The digest is computed even for a missing value, so a missing and a wrong secret cost the same.
    timingSafeEqual(digest(presented ?? ""), expected) && presented !== undefined;
  const refusal = () => new ConnectError(REFUSAL_MESSAGE, Code.Unauthenticated);
  return {
    accepts,
    refusal,
    refusalMessage: REFUSAL_MESSAGE,
    connectInterceptor: (next) => async (request) => {
      if (!accepts(request.header.get(CAPABILITY_SECRET_METADATA_KEY) ?? undefined)) throw refusal();
      return next(request);
    },
    acceptsGrpc(headers) {
      // Node joins a repeated header's values with ", ": a caller that repeats the key gets no second guess in
      // the same call, since the joined text is not the secret.
      const value = headers[CAPABILITY_SECRET_METADATA_KEY];
      return accepts(typeof value === "string" ? value : undefined);
    },
  };
}
