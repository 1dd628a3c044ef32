/**
 * Test helpers for Wanaku services and transports: the transport kit's reference capability served as a
 * Wanaku service. Use it from tests only.
 *
 * @packageDocumentation
 */
export {
  createWanakuReferenceCapability,
  type WanakuReferenceCapability,
} from "./wanaku-reference-capability.js";
