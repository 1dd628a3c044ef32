/**
 * `@trestle/core/routing`: the seams that choose the service and the transport of a call — `ServiceResolver`,
 * `CallOutcomeListener`, `TransportSelector` — and the kinds of service a target may be.
 *
 * @packageDocumentation
 */
export type { CallOutcomeListener, ServiceResolver } from "../resolver.js";
export {
  DEFAULT_PROTOCOL,
  isServiceType,
  SERVICE_TYPES,
  type ServiceTarget,
  type ServiceType,
} from "../service-target.js";
export {
  createTransportSelector,
  type TransportSelector,
  type TransportSelectorOptions,
} from "../transport-selector.js";
