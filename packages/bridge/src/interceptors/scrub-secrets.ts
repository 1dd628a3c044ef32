import {
  type CodeOutput,
  createContextKey,
  type Interceptor,
  type TransportRequest,
  type TransportResponse,
  TrestleError,
} from "@trestle/core";
import type { SecretValues } from "../secret-values.js";

/**
 * The secret values sent in a call (what its transport said are secret, secret-looking arguments, credential
 * metadata and environment entries), put in the call's context values by the bridge; {@link scrubSecrets} and the call
 * events scrub them from whatever comes back.
 */
export const callSecretsKey = createContextKey<SecretValues | undefined>(undefined, {
  description: "trestle.callSecrets",
});

/**
 * The error a caller may see: its text and its typed details scrubbed, and no `cause` or `metadata`, since either
 * may carry what the service echoed back.
 */
function scrubbedError(thrown: unknown, secrets: SecretValues): unknown {
  const error = TrestleError.from(thrown);
  return new TrestleError(secrets.scrub(error.rawMessage), error.code, {
    details: secrets.scrubDeep(error.details),
  });
}

/**
 * An interceptor that scrubs the call's secret values (from its context values under {@link callSecretsKey})
 * from what comes back: a tool result (every string in it, however deep), and the message of an error a call
 * fails with, so a capability that echoes a credential back cannot hand it to a user, an event or a log. Code
 * execution outputs pass as they are (the program's own output is the user's); its error is scrubbed. Calls that
 * carry no secret pass through untouched. Compose it inside the call events.
 *
 * @example
 * ```ts
 * const transports = interceptTransports(selector, [callEvents({ sink: hub }), scrubSecrets()]);
 * ```
 */
export function scrubSecrets(): Interceptor {
  return (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      const secrets = request.options.contextValues?.get(callSecretsKey);
      if (!secrets || secrets.size === 0) return next(request);
      if (request.method === "executeCode") {
        async function* scrubbed(): AsyncGenerator<CodeOutput> {
          try {
            yield* next(request) as AsyncIterable<CodeOutput>;
          } catch (thrown) {
            throw scrubbedError(thrown, secrets as SecretValues);
          }
        }
        return scrubbed() as unknown as TransportResponse<R>;
      }
      if (request.method === "probeHealth") return next(request);
      let response: Promise<unknown>;
      try {
        response = next(request) as Promise<unknown>;
      } catch (thrown) {
        throw scrubbedError(thrown, secrets);
      }
      return response.then(
        (result) => secrets.scrubDeep(result),
        (thrown: unknown) => {
          throw scrubbedError(thrown, secrets);
        },
      ) as TransportResponse<R>;
    };
}
