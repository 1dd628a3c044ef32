import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  callEvents,
  createCodeExecutionBridge,
  createEventHub,
  createInvokerBridge,
  createResourceBridge,
  type EventHub,
  interceptTransports,
  scrubSecrets,
} from "@trestle/bridge";
import type {
  PromptReference,
  ResourceReference,
  ServiceHandlers,
  ServiceTarget,
  ToolReference,
} from "@trestle/core";
import { createInMemoryNetwork, createInMemoryTransport } from "@trestle/core/in-memory";
import { createTransportSelector, type ServiceResolver } from "@trestle/core/routing";
import { createCallService } from "../src/calls/call-service.js";
import { ANONYMOUS_PRINCIPAL, callerPrincipal } from "../src/calls/caller.js";
import type { CatalogView, EngineLanguage } from "../src/calls/catalog-view.js";
import { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from "../src/mcp/mcp-endpoint.js";
import { MCP_REVISIONS } from "../src/mcp/protocol-era.js";
import type { EndedSessionLedger } from "../src/mcp/session-registry.js";

/** A catalog in plain arrays, for tests of the MCP layer. */
export class FixtureCatalog implements CatalogView {
  tools: ToolReference[] = [];
  resources: ResourceReference[] = [];
  prompts: PromptReference[] = [];
  namespaces = new Set<string>([""]);
  listTools = (ns: string) => this.tools.filter((t) => (t.namespace ?? "") === ns);
  getTool = (ns: string, name: string) => this.listTools(ns).find((t) => t.name === name);
  listResources = (ns: string) => this.resources.filter((r) => (r.namespace ?? "") === ns);
  getResource = (ns: string, location: string) => this.listResources(ns).find((r) => r.location === location);
  listPrompts = (ns: string) => this.prompts.filter((p) => (p.namespace ?? "") === ns);
  getPrompt = (ns: string, name: string) => this.listPrompts(ns).find((p) => p.name === name);
  getNamespace = (name: string) => (this.namespaces.has(name) ? { name } : undefined);
}

export interface McpFixture {
  url: string;
  endpoint: McpEndpoint;
  catalog: FixtureCatalog;
  events: EventHub;
  engines: EngineLanguage[];
  close(): Promise<void>;
}

/**
 * An MCP endpoint on a loopback port, routing to `handlers` served in memory as every service type. The secret
 * lets two fixtures share sessions, as replicas do.
 */
export async function startMcpFixture(
  handlers: ServiceHandlers,
  options: {
    stateless?: boolean;
    secret?: Buffer;
    maxBodyBytes?: number;
    catalog?: FixtureCatalog;
    /** More endpoint options (limits), as the router would pass them. */
    endpoint?: Partial<Omit<McpEndpointOptions, "settings" | "sessions">>;
    /** More MCP settings, as the router would pass them. */
    settings?: Partial<McpEndpointOptions["settings"]>;
    /** Where the sessions' ends are recorded (the router's store). */
    ledger?: EndedSessionLedger;
  } = {},
): Promise<McpFixture> {
  const network = createInMemoryNetwork();
  const served = network.serve(handlers, { serviceName: "fixture" });
  const target: ServiceTarget = served.target;
  const resolver: ServiceResolver = {
    resolve: async () => target,
    resolveCodeExecution: async () => target,
  };
  const transports = createTransportSelector({ byProtocol: { grpc: createInMemoryTransport({ network }) } });
  const events = createEventHub();
  // As the router composes them: call events outermost, then the scrubbing of the call's secret values.
  const deps = {
    resolver,
    transports: interceptTransports(transports, [callEvents({ sink: events }), scrubSecrets()]),
    events,
  };
  const catalog = options.catalog ?? new FixtureCatalog();
  const engines: EngineLanguage[] = [];
  const endpoint = createMcpEndpoint(
    {
      calls: createCallService({
        catalog,
        invoker: createInvokerBridge(deps),
        resources: createResourceBridge(deps),
        codeExecution: createCodeExecutionBridge(deps),
        engines: () => engines,
        codeExecutionToolName: "execute_code",
        maxConcurrentRunsPerPrincipal: 4,
      }),
      canServeResources: (namespace) => catalog.listResources(namespace).length > 0,
    },
    {
      stateless: options.stateless ?? false,
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      maxListenStreamsPerPrincipal: 16,
      listenMaxAgeMs: 60 * 60_000,
      ...options.endpoint,
      settings: {
        serverInfo: { name: "trestle", version: "0.0.0-test" },
        pageSize: 2,
        forwardHeaders: ["authorization"],
        acceptedRevisions: MCP_REVISIONS,
        caching: { listTtlMs: 60_000, cacheScope: "public" },
        ...options.settings,
      },
      sessions: {
        idleTimeoutMs: 60_000,
        maxSessions: 100,
        ...(options.secret ? { secret: options.secret } : {}),
        ...(options.ledger ? { ledger: options.ledger } : {}),
      },
    },
  );
  const http: HttpServer = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const ns = path === "/mcp" ? "" : (path.split("/")[1] ?? "");
    // The principal the front door would have admitted: a test names it in a header of its own.
    const principal = req.headers["x-test-principal"];
    void endpoint.handle(
      req,
      res,
      ns,
      typeof principal === "string" ? callerPrincipal({ id: principal }) : ANONYMOUS_PRINCIPAL,
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    endpoint,
    catalog,
    events,
    engines,
    async close() {
      await endpoint.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await transports.close();
      await served.close();
    },
  };
}
