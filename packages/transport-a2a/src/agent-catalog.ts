import type { AgentCard, AgentSkill, SecurityScheme } from "@a2a-js/sdk";
import { Code, type JsonObject, type TranslationNote, TrestleError } from "@trestle/core";
import { type A2aAgent, agentOrigin, connectAgent } from "./agent-client.js";

/** The `_meta` key under which a skill tool (and a call's result) carries its A2A details. */
export const A2A_META_KEY = "trestle.dev/a2a";

/** A skill of an agent as an MCP tool: `name` is the skill's id, as the agent knows it. */
export interface A2aSkillTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject;
  /**
   * A2A work is task-shaped: an MCP client that declares the tasks extension may get an MCP task for a call (the
   * router runs it, and the agent's questions show on the task).
   */
  execution: { taskSupport: "optional" };
  /** Under {@link A2A_META_KEY}: the skill's id, tags, examples, input and output modes. */
  _meta: JsonObject;
}

/** What an agent's card offers the router. */
export interface AgentCatalog {
  /** The agent's name and version, from its card. */
  agent: { name: string; version: string; description: string };
  /** The A2A version the router speaks to it: `1.0`, or `0.3` for a v0.3 card. */
  protocolVersion: string;
  /** True when the card says the agent streams (`SendStreamingMessage`). */
  streaming: boolean;
  tools: A2aSkillTool[];
  /** What the import approximated (skills have no input schema, …). */
  notes: TranslationNote[];
}

/** The input schema every skill tool takes: A2A skills declare none, so it is a message, data and a task handle. */
export const SKILL_INPUT_SCHEMA: JsonObject = {
  type: "object",
  properties: {
    message: { type: "string", description: "What to say to the agent (a text part)" },
    data: {
      type: "object",
      description: "Structured input for the agent (a data part)",
      additionalProperties: true,
    },
    task: {
      type: "string",
      description:
        "To carry on an earlier conversation: the handle an earlier call returned in structuredContent.task",
    },
  },
  additionalProperties: false,
};

function describeSkill(skill: AgentSkill, card: AgentCard): string {
  const inputModes = skill.inputModes.length > 0 ? skill.inputModes : card.defaultInputModes;
  const outputModes = skill.outputModes.length > 0 ? skill.outputModes : card.defaultOutputModes;
  const lines = [skill.description || skill.name];
  if (skill.examples.length > 0) lines.push(`Examples: ${skill.examples.slice(0, 5).join(" | ")}`);
  lines.push(
    `A2A skill '${skill.id}' of agent '${card.name}'. Input: ${inputModes.join(", ") || "any"}; output: ${outputModes.join(", ") || "any"}.`,
  );
  return lines.join("\n");
}

/** The card's skills as tools (see {@link SKILL_INPUT_SCHEMA}), and what that approximated. */
export function skillsAsTools(card: AgentCard): { tools: A2aSkillTool[]; notes: TranslationNote[] } {
  const tools = card.skills.map((skill) => ({
    name: skill.id,
    title: skill.name || skill.id,
    description: describeSkill(skill, card),
    inputSchema: SKILL_INPUT_SCHEMA,
    execution: { taskSupport: "optional" as const },
    _meta: {
      [A2A_META_KEY]: {
        skillId: skill.id,
        tags: skill.tags,
        examples: skill.examples,
        inputModes: skill.inputModes.length > 0 ? skill.inputModes : card.defaultInputModes,
        outputModes: skill.outputModes.length > 0 ? skill.outputModes : card.defaultOutputModes,
      },
    },
  }));
  const notes: TranslationNote[] =
    tools.length > 0
      ? [
          {
            action: "approximated",
            what: "skill input schema",
            detail:
              "A2A skills declare no input schema: each tool takes a text message, optional data and a task handle",
          },
        ]
      : [];
  return { tools, notes };
}

/** The header a security scheme needs, or why the router cannot meet it. */
function headerFor(scheme: SecurityScheme | undefined): { header: string } | { unsupported: string } {
  switch (scheme?.scheme?.$case) {
    case "httpAuthSecurityScheme":
    case "oauth2SecurityScheme":
    case "openIdConnectSecurityScheme":
      return { header: "authorization" };
    case "apiKeySecurityScheme": {
      const { location, name } = scheme.scheme.value;
      if (location.toLowerCase() === "header") return { header: name.toLowerCase() };
      if (location.toLowerCase() === "cookie") return { header: "cookie" };
      return { unsupported: `an API key in the ${location || "query"}` };
    }
    case "mtlsSecurityScheme":
      return { unsupported: "mutual TLS" };
    default:
      return { unsupported: "an unknown scheme" };
  }
}

/**
 * Checks that the configured headers meet one of the card's security requirements (any one suffices; within one,
 * every scheme must be met). Names headers, never values.
 *
 * @throws TrestleError `Unauthenticated` naming what the card asks for when no requirement is met.
 */
export function checkCredentials(card: AgentCard, agent: A2aAgent): void {
  if (card.securityRequirements.length === 0) return;
  const configured = new Set(Object.keys(agent.headers ?? {}).map((h) => h.toLowerCase()));
  const wanted: string[] = [];
  for (const requirement of card.securityRequirements) {
    const needs = Object.keys(requirement.schemes).map((name) => ({
      name,
      need: headerFor(card.securitySchemes[name]),
    }));
    if (needs.every(({ need }) => "header" in need && configured.has(need.header))) return;
    wanted.push(
      needs
        .map(({ name, need }) =>
          "header" in need
            ? `'${name}' (header ${need.header})`
            : `'${name}' (${need.unsupported}, not supported)`,
        )
        .join(" and "),
    );
  }
  throw new TrestleError(
    `The A2A agent at ${agentOrigin(agent.url)} requires ${wanted.join(" or ")}; configure the header in the forward's a2a.headers`,
    Code.Unauthenticated,
  );
}

/**
 * Reads an agent's card and returns its skills as tools, the A2A version it speaks and whether it streams.
 *
 * @throws TrestleError `Unavailable` when the card cannot be read, `InvalidArgument` when it is no usable card,
 * `Unauthenticated` when the card's security requirements are not met by `agent.headers`.
 */
export async function readAgentCatalog(
  agent: A2aAgent,
  options: { signal?: AbortSignal } = {},
): Promise<AgentCatalog> {
  const { card, version } = await connectAgent(agent, options.signal);
  checkCredentials(card, agent);
  const { tools, notes } = skillsAsTools(card);
  return {
    agent: { name: card.name, version: card.version, description: card.description },
    protocolVersion: version,
    streaming: card.capabilities?.streaming === true,
    tools,
    notes,
  };
}
