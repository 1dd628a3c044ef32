/**
 * The A2A transport of Trestle: a `BridgeTransport` that puts A2A agents (v1.0 and v0.3) behind the router with
 * `@a2a-js/sdk`, each skill of an agent's card a tool; plus what the router needs to import an agent's skills.
 *
 * @packageDocumentation
 */
export { partsToContent, type TranslatedParts } from "./a2a-content.js";
export {
  A2A_INPUT_KEY,
  type A2aAgentDirectory,
  type A2aTransportOptions,
  createA2aTransport,
  taskStateName,
} from "./a2a-transport.js";
export {
  A2A_META_KEY,
  type A2aSkillTool,
  type AgentCatalog,
  checkCredentials,
  readAgentCatalog,
  SKILL_INPUT_SCHEMA,
  skillsAsTools,
} from "./agent-catalog.js";
export { type A2aAgent, AGENT_CARD_PATH, agentOrigin } from "./agent-client.js";
export { A2A_SKILL_URI_SCHEME, type A2aSkillAddress, a2aSkillUri, parseA2aSkillUri } from "./skill-uri.js";
export { decodeTaskHandle, encodeTaskHandle, type TaskHandle } from "./task-handle.js";
