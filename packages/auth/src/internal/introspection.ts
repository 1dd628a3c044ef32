import { AuthError } from "../errors.js";
import { applyClientAuth, type ClientCredentials } from "./client-auth.js";
import { type FetchFunction, HttpFailure, isJsonObject, requestJson } from "./http.js";

/**
 * Asks an RFC 7662 introspection endpoint about `token` and returns its answer (`active` is a boolean).
 *
 * @throws {AuthError} `unavailable` when the endpoint cannot be reached, refuses the router's credentials or
 *   answers something that is not an introspection response. The message never contains the token or the secret.
 */
export async function introspectToken(
  endpoint: URL,
  token: string,
  credentials: ClientCredentials,
  options: { fetch: FetchFunction; timeoutMs: number },
): Promise<Record<string, unknown>> {
  const form = new URLSearchParams({ token, token_type_hint: "access_token" });
  const headers = new Headers({
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  });
  applyClientAuth(credentials, form, headers);
  const where = `${endpoint.origin}${endpoint.pathname}`;
  let answer: Awaited<ReturnType<typeof requestJson>>;
  try {
    answer = await requestJson(
      endpoint,
      { method: "POST", headers, body: form.toString() },
      { fetch: options.fetch, timeoutMs: options.timeoutMs, maxBytes: 64 * 1024 },
    );
  } catch (error) {
    if (error instanceof HttpFailure) {
      throw new AuthError("unavailable", `Token introspection failed: ${error.message}`, { cause: error });
    }
    throw error;
  }
  if (answer.status === 401 || answer.status === 403) {
    throw new AuthError(
      "unavailable",
      `The introspection endpoint ${where} refused the router's client credentials (HTTP ${answer.status})`,
    );
  }
  if (answer.status !== 200 || !isJsonObject(answer.body) || typeof answer.body.active !== "boolean") {
    throw new AuthError(
      "unavailable",
      `The introspection endpoint ${where} gave no introspection response (HTTP ${answer.status})`,
    );
  }
  return answer.body;
}
