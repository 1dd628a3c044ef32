import type { Catalog } from "@trestle/registry";
import { a2aSkillUri } from "@trestle/transport-a2a/skill-uri";
import type { McpUpstream, StdioSandbox } from "@trestle/transport-mcp";
import { mcpToolUri } from "@trestle/transport-mcp/tool-uri";
import type { Logger } from "pino";
import type { RouterConfig } from "../config.js";
import { combinedUpstreamConnector } from "../forwards/a2a-connector.js";
import { createForwardDirectory, type ForwardDirectory } from "../forwards/forward-directory.js";
import { MCP_PROTOCOL } from "../forwards/forward-identity.js";
import { createForwardService, type ForwardService } from "../forwards/forward-service.js";
import { createForwardSupervisor, type ForwardSupervisor } from "../forwards/forward-supervisor.js";
import { forwardSandboxOptions, type LazyForwardSandbox, lazyForwardSandbox } from "./forward-sandbox.js";
import type { TransportsModule } from "./transports.js";

/** The sandbox stdio forwards run in, made when a forward first needs it. */
export type ForwardSandbox = LazyForwardSandbox<StdioSandbox>;

/** Where forwards are found (before the store opens: the transports read it). */
export interface ForwardDirectoryModule {
  readonly directory: ForwardDirectory;
  readonly sandbox: ForwardSandbox;
}

/**
 * The forwards' directory and sandbox: the directory is filled once the catalog is open (see
 * {@link createForwardsModule}); the sandbox is made with the MCP client stack when a stdio forward first starts.
 * `privatePaths` are the router's own files no forward may see.
 */
export function createForwardDirectoryModule(
  config: RouterConfig,
  privatePaths: readonly string[],
  logger: Logger,
): ForwardDirectoryModule {
  return {
    directory: createForwardDirectory({
      startTimeoutMs: config.forwardStartTimeoutMs,
      handshakeTimeoutMs: config.forwardHandshakeTimeoutMs,
    }),
    sandbox: lazyForwardSandbox(async () =>
      (await import("@trestle/transport-mcp")).createStdioSandbox(
        forwardSandboxOptions(config, privatePaths, logger),
      ),
    ),
  };
}

/** The forwards at work: their upstreams watched, their catalogs imported. */
export interface ForwardsModule {
  readonly service: ForwardService;
  readonly supervisor: ForwardSupervisor;
}

/**
 * Starts watching the catalog's forwards: each upstream's catalog is imported into its namespace and kept current,
 * through the MCP transport's watch (MCP servers) or the A2A card reader (agents), both loaded when first needed.
 */
export function createForwardsModule(
  catalog: Catalog,
  forwards: ForwardDirectoryModule,
  transports: TransportsModule,
  logger: Logger,
): ForwardsModule {
  const supervisor = createForwardSupervisor({
    catalog,
    directory: forwards.directory,
    logger,
    catalogTimeoutMs: 30_000,
    // The forwards module names no transport: the MCP transport's watch and tool addressing are handed in here.
    upstreams: combinedUpstreamConnector(
      {
        // Only MCP upstreams come here: the combined connector hands A2A agents to their reader.
        watch: async (upstream, options) =>
          (await import("@trestle/transport-mcp")).watchUpstreamCatalog(upstream as McpUpstream, {
            ...options,
            sandbox: await forwards.sandbox.get(),
            sandboxKey: options.service,
          }),
        toolUri: mcpToolUri,
      },
      {
        readAgentCatalog: async (agent, options) =>
          (await import("@trestle/transport-a2a")).readAgentCatalog(agent, options),
        skillUri: a2aSkillUri,
      },
    ),
    onReleased: (target) => transports.byProtocol[target.protocol ?? MCP_PROTOCOL]?.release?.(target),
  });
  const service = createForwardService({ catalog, directory: forwards.directory, supervisor });
  supervisor.start();
  return { service, supervisor };
}
