import type { BridgeTransport } from "./call.js";
import { Code, TrestleError } from "./error.js";
import { DEFAULT_PROTOCOL, type ServiceTarget } from "./service-target.js";

/** Chooses the transport for a target: the seam that lets a transport be swapped per service. */
export interface TransportSelector {
  /**
   * The transport that serves `target`.
   * @throws TrestleError `FailedPrecondition` when no transport is configured for the target's protocol.
   */
  transportFor(target: ServiceTarget): BridgeTransport;
  /** Calls `release` on every transport that implements it (the target went away). */
  release(target: ServiceTarget): void;
  /** Closes every distinct transport once. */
  close(): Promise<void>;
}

/** Options for {@link createTransportSelector}. */
export interface TransportSelectorOptions {
  /** Transports by protocol name (`"grpc"`, `"connect"`, …). A target without `protocol` uses `"grpc"`. */
  byProtocol: Record<string, BridgeTransport>;
  /** Overrides by service name; these win over the protocol. */
  byServiceName?: Record<string, BridgeTransport>;
}

/**
 * Creates a {@link TransportSelector}: an override for the target's service name wins, then the transport of
 * its protocol (`"grpc"` when it names none).
 *
 * @example
 * ```ts
 * const selector = createTransportSelector({
 *   byProtocol: { grpc: createGrpcTransport(), connect: createConnectTransport() },
 *   byServiceName: { legacy-weather: legacyGrpc },
 * });
 * ```
 */
export function createTransportSelector(options: TransportSelectorOptions): TransportSelector {
  const byProtocol = new Map(Object.entries(options.byProtocol));
  const byServiceName = new Map(Object.entries(options.byServiceName ?? {}));
  const all = new Set<BridgeTransport>([...byProtocol.values(), ...byServiceName.values()]);
  return {
    transportFor(target) {
      const override = byServiceName.get(target.serviceName);
      if (override) return override;
      const protocol = target.protocol ?? DEFAULT_PROTOCOL;
      const transport = byProtocol.get(protocol);
      if (!transport) {
        throw new TrestleError(
          `No transport is configured for protocol '${protocol}' (service '${target.serviceName}'); configured: ${[...byProtocol.keys()].join(", ") || "none"}`,
          Code.FailedPrecondition,
        );
      }
      return transport;
    },
    release(target) {
      for (const transport of all) transport.release?.(target);
    },
    async close() {
      await Promise.all([...all].map((t) => t.close()));
    },
  };
}
