/**
 * Test helpers for A2A: builders of the SDK's messages and parts, readers of a task's text, and the same
 * messages in their v1.0 JSON form for tests that speak JSON-RPC directly. Imports nothing but `@a2a-js/sdk` and
 * this package; safe in any test runner.
 *
 * @packageDocumentation
 */
export {
  a2aMessage,
  artifactText,
  dataPart,
  partsText,
  sendMessageParams,
  statusText,
  taskStatus,
  textPart,
  toolCallPart,
} from "./messages.js";
export {
  type WireMessage,
  type WireTask,
  wireMessageParams,
  wireTaskOf,
  wireToolCallParams,
} from "./wire-messages.js";
