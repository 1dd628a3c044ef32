import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { Code, TrestleError } from "@trestle/core";
import type { ForwardA2aUpstream, ForwardUpstream } from "@trestle/core/catalog";
import type {
  UpstreamCatalog,
  UpstreamCatalogWatch,
  UpstreamConnector,
  UpstreamWatchOptions,
} from "./upstream-connector.js";

/** What an agent's card offers, as the A2A transport reads it (`readAgentCatalog` of `@trestle/transport-a2a`). */
export interface AgentCatalogReading {
  agent: { name: string; version: string; description: string };
  protocolVersion: string;
  streaming: boolean;
  tools: {
    name: string;
    title: string;
    description: string;
    inputSchema: Record<string, unknown>;
    /** Whether calls may run as MCP tasks (A2A work is task-shaped). */
    execution?: { taskSupport?: "forbidden" | "optional" | "required" };
    _meta: Record<string, unknown>;
  }[];
}

/** What the A2A forwards need of the A2A transport, handed in by the composition root. */
export interface A2aCardReader {
  /**
   * Reads the agent's card: its skills as tools.
   * @throws TrestleError when the card cannot be read or its security requirements are not met.
   */
  readAgentCatalog(
    agent: { url: string; headers?: Record<string, string> },
    options: { signal?: AbortSignal },
  ): Promise<AgentCatalogReading>;
  /** The catalog location of skill `skillId` of forward `forward`. */
  skillUri(forward: string, skillId: string): string;
}

/** An agent's card as a forward's catalog: its skills as tools, no resources or prompts. */
function catalogOf(reading: AgentCatalogReading): UpstreamCatalog {
  return {
    serverInfo: { name: reading.agent.name, version: reading.agent.version },
    capabilities: { tools: {} },
    ...(reading.agent.description ? { instructions: reading.agent.description } : {}),
    tools: reading.tools.map(
      (tool) =>
        ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          ...(tool.execution ? { execution: tool.execution } : {}),
          _meta: tool._meta,
        }) as Tool,
    ),
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };
}

/**
 * A watch of an A2A agent's card: A2A has no change notification, so the card is read when the forward connects
 * and again on each `refresh` (a reconnection, an operator's refresh).
 */
async function watchAgent(
  reader: A2aCardReader,
  upstream: ForwardA2aUpstream,
  options: UpstreamWatchOptions,
): Promise<UpstreamCatalogWatch> {
  const agent = { url: upstream.url, ...(upstream.headers ? { headers: upstream.headers } : {}) };
  const read = async (timeoutMs: number) =>
    catalogOf(await reader.readAgentCatalog(agent, { signal: AbortSignal.timeout(timeoutMs) }));
  let catalog = await read(options.startTimeoutMs);
  return {
    get catalog() {
      return catalog;
    },
    async refresh() {
      catalog = await read(options.timeoutMs);
      return catalog;
    },
    async getPrompt() {
      throw new TrestleError("A2A agents have no prompts", Code.NotFound);
    },
    async close() {
      // Nothing is held open between card reads.
    },
  };
}

/**
 * The connector the forward supervisor uses: A2A agents through `a2a`, MCP servers through `mcp` (both the
 * transports' own functions, handed in by the composition root so that the forwards module names no transport).
 */
export function combinedUpstreamConnector(mcp: UpstreamConnector, a2a: A2aCardReader): UpstreamConnector {
  return {
    watch(upstream: ForwardUpstream, options) {
      return upstream.kind === "a2a" ? watchAgent(a2a, upstream, options) : mcp.watch(upstream, options);
    },
    toolUri(forward, toolName, upstream) {
      return upstream?.kind === "a2a"
        ? a2a.skillUri(forward, toolName)
        : mcp.toolUri(forward, toolName, upstream);
    },
  };
}
