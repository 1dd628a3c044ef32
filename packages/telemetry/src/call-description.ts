import type { TransportRequest } from "@trestle/core";

/**
 * The class of principal a call is made for: the label metrics carry instead of the principal's name, whose values
 * are unbounded (every OAuth subject would be a new series).
 */
export type PrincipalClass = "static" | "oauth" | "anonymous" | "builtin";

/** What metrics and spans say about one transport call beyond its target: where it came from and for whom. */
export interface CallDescription {
  /** The namespace the call was made in ("" for the default). */
  namespace: string;
  /** The tool's name (or the resource's, the engine's for code execution); "" when the call names none. */
  tool: string;
  /** Whose call it is, as a class (never the name). */
  principalClass: PrincipalClass | "";
}

/**
 * Reads a {@link CallDescription} from a transport request (the composition root knows where the fronts put the
 * namespace, tool and principal: the call's context values).
 */
export type DescribeCall = (request: TransportRequest) => CallDescription;

/** The transport a request goes over: its target's protocol, gRPC when it names none. */
export function transportOf(request: TransportRequest): string {
  return request.target.protocol ?? "grpc";
}
