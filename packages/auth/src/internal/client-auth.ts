/** How the router authenticates to a token or introspection endpoint (RFC 6749 §2.3.1). */
export type ClientAuthMethod = "client_secret_basic" | "client_secret_post";

/** A confidential client's credentials. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** `client_secret_basic` (the default) or `client_secret_post`. */
  method?: ClientAuthMethod;
}

/**
 * Adds client authentication to a form request: an `Authorization: Basic` header whose id and secret are
 * form-encoded first (RFC 6749 §2.3.1), or `client_id`/`client_secret` in the body.
 */
export function applyClientAuth(
  credentials: ClientCredentials,
  form: URLSearchParams,
  headers: Headers,
): void {
  if ((credentials.method ?? "client_secret_basic") === "client_secret_post") {
    form.set("client_id", credentials.clientId);
    form.set("client_secret", credentials.clientSecret);
    return;
  }
  const pair = `${formEncode(credentials.clientId)}:${formEncode(credentials.clientSecret)}`;
  headers.set("authorization", `Basic ${Buffer.from(pair, "utf8").toString("base64")}`);
}

function formEncode(value: string): string {
  return new URLSearchParams([["", value]]).toString().slice(1);
}
