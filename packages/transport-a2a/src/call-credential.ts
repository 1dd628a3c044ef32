import type { RequestOptions } from "@a2a-js/sdk/client";

/** The router's credential for one call's caller: headers for that call's requests (core's `upstreamCredentialKey`). */
export type Credential = Readonly<Record<string, string>> | undefined;

/**
 * The SDK's options of one request: its signal, and the call's credential as service parameters (HTTP headers, or
 * gRPC metadata), which win over the agent's configured headers of the same names.
 */
export function sendOptions(signal: AbortSignal, credential: Credential): RequestOptions {
  return credential ? { signal, serviceParameters: { ...credential } } : { signal };
}
