/**
 * Test helpers for transport authors: the transport test kit, the reference capability it calls, and the
 * in-memory network. Imports vitest; use it from tests only.
 *
 * @packageDocumentation
 */
export {
  createInMemoryNetwork,
  type InMemoryNetwork,
  type ServedCapability,
} from "../in-memory-transport.js";
export {
  createReferenceCapability,
  type ReferenceCapability,
  type ReferenceObservations,
} from "./reference-capability.js";
export {
  type ContractFeatures,
  describeTransportContract,
  type TransportContractOptions,
} from "./transport-contract.js";
