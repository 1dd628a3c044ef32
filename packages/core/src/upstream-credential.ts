import { createContextKey } from "./context-values.js";

/**
 * The router's own credential for one call's upstream, as the headers that carry it (`authorization: Bearer …`,
 * a token exchanged for the caller, or a static one). The router sets it below the call's events, so no event or
 * log holds it. A transport that speaks HTTP to its upstream (MCP, A2A) sends these headers with this call's
 * requests, over the upstream's configured headers of the same names, and never shows their values; gRPC and
 * Connect carry the credential as call metadata instead. Absent: the call goes with the upstream's own headers.
 *
 * @example
 * ```ts
 * const values = options.contextValues ?? createContextValues();
 * values.set(upstreamCredentialKey, { authorization: `Bearer ${exchanged.accessToken}` });
 * ```
 */
export const upstreamCredentialKey = createContextKey<Readonly<Record<string, string>> | undefined>(
  undefined,
  { description: "trestle.upstreamCredential" },
);

/**
 * `headers` with `credential` over them: a credential header replaces a configured header of the same name,
 * whatever its case (HTTP header names are case-insensitive).
 */
export function withCredentialHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  credential: Readonly<Record<string, string>>,
): Record<string, string> {
  const replaced = new Set(Object.keys(credential).map((name) => name.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!replaced.has(name.toLowerCase())) out[name] = value;
  }
  return { ...out, ...credential };
}
