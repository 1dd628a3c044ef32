import type { RequestOptions } from "@a2a-js/sdk/client";

/** The router's credential for one call's caller: headers for that call's requests (core's `upstreamCredentialKey`). */
export type Credential = Readonly<Record<string, string>> | undefined;

/**
 * The SDK's options of one request: its signal, and as service parameters (HTTP headers, or gRPC metadata) the
 * call's trace context and credential, which win over the agent's configured headers of the same names.
 */
export function sendOptions(
  signal: AbortSignal,
  credential: Credential,
  trace?: Readonly<Record<string, string>>,
): RequestOptions {
  if (!credential && !trace) return { signal };
  return { signal, serviceParameters: { ...trace, ...credential } };
}
