import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type BridgeTransport,
  Code,
  type HandlerContext,
  type JsonObject,
  type ServiceHandlers,
  TrestleError,
} from "@trestle/core";
import type { ServedCapability } from "@trestle/core/in-memory";
import { describeTransportContract } from "@trestle/core/testing";
import { createMcpTransport, mcpToolUri } from "../src/index.js";
import { freePort } from "./support/upstreams.js";

/** The JSON-RPC error a handler's failure answers with, the inverse of the transport's mapping. */
function jsonRpcError(error: unknown): McpError {
  const failure = TrestleError.from(error);
  const code =
    failure.code === Code.InvalidArgument
      ? -32602
      : failure.code === Code.NotFound
        ? -32002
        : failure.code === Code.Unimplemented
          ? -32601
          : -32603;
  return new McpError(code, failure.rawMessage);
}

function contextOf(signal: AbortSignal): HandlerContext {
  return { signal, requestId: "", metadata: {} };
}

/**
 * Serves neutral handlers as an MCP server over Streamable HTTP on a loopback port: the kit's reference
 * capability as an MCP upstream. A kit tool's URI travels as the MCP tool's name.
 */
async function serveOverMcp(handlers: ServiceHandlers): Promise<ServedCapability> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const open = new Set<Server>();
  const mcpServer = () => {
    const capabilities = { tools: {}, ...(handlers.readResource ? { resources: {} } : {}) };
    const server = new Server({ name: "kit-reference", version: "1.0.0" }, { capabilities });
    open.add(server);
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      if (!handlers.callTool) throw new McpError(-32601, "no tools");
      const uri = request.params.name;
      try {
        const result = await handlers.callTool(
          {
            tool: { name: "kit-tool", type: "kit", uri },
            arguments: (request.params.arguments ?? {}) as JsonObject,
          },
          contextOf(extra.signal),
        );
        return result as CallToolResult;
      } catch (error) {
        throw jsonRpcError(error);
      }
    });
    if (handlers.readResource) {
      const read = handlers.readResource;
      server.setRequestHandler(
        ReadResourceRequestSchema,
        async (request, extra): Promise<ReadResourceResult> => {
          const { uri } = request.params;
          try {
            const result = await read(
              { resource: { location: uri, type: "", name: "" }, uri },
              contextOf(extra.signal),
            );
            return result as ReadResourceResult;
          } catch (error) {
            throw jsonRpcError(error);
          }
        },
      );
    }
    return server;
  };
  const http = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (known) {
      await known.handleRequest(req, res, body);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    target: {
      id: `kit-${port}`,
      serviceName: "kit",
      host: "127.0.0.1",
      port,
      serviceType: "multi-capability",
    },
    async close() {
      await Promise.all([...open].map((server) => server.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * The kit's tools are named by URIs of their own (`echo://…`): the transport addresses an MCP tool by an
 * `mcp://<forward>/tools/<name>` URI, so the kit's URI becomes the tool's name on the way in, nothing else.
 */
function addressingKitTools(transport: BridgeTransport): BridgeTransport {
  return {
    ...transport,
    callTool: (call, target, options) =>
      transport.callTool(
        { ...call, tool: { ...call.tool, uri: mcpToolUri("kit", call.tool.uri) } },
        target,
        options,
      ),
  };
}

describeTransportContract({
  name: "mcp transport ↔ an MCP server over Streamable HTTP",
  // Without a directory a target means Streamable HTTP at http://<host>:<port>/mcp.
  createTransport: () => addressingKitTools(createMcpTransport()),
  serve: serveOverMcp,
  deadTarget: async () => ({
    id: "dead",
    serviceName: "dead",
    host: "127.0.0.1",
    port: await freePort(),
    serviceType: "multi-capability",
  }),
  // MCP has no code execution, provisioning, call metadata or resource fields beyond the URI; its JSON-RPC
  // errors carry InvalidArgument, NotFound and Internal; ping answers or not.
  expresses: {
    callFields: false,
    resourceFields: false,
    allErrorCodes: false,
    healthStates: false,
    codeExecution: false,
    provisioning: false,
  },
});

/**
 * Serves neutral handlers as an MCP 2026-07-28 server (stateless JSON over HTTP, no `initialize`): the kit's
 * reference capability as a modern upstream, which the transport discovers and calls with one POST per call.
 */
async function serveOverModernMcp(handlers: ServiceHandlers): Promise<ServedCapability> {
  const http = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      id: number;
      method: string;
      params?: { name?: string; uri?: string; arguments?: JsonObject; _meta?: JsonObject };
    };
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableEnded) abort.abort();
    });
    const reply = (status: number, body: object) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...body }));
    };
    const complete = (result: object) => reply(200, { result: { ...result, resultType: "complete" } });
    if (message.params?._meta?.["io.modelcontextprotocol/protocolVersion"] !== "2026-07-28") {
      reply(400, {
        error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"] } },
      });
      return;
    }
    try {
      if (message.method === "server/discover") {
        complete({
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {}, ...(handlers.readResource ? { resources: {} } : {}) },
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "kit-reference", version: "1.0.0" } },
        });
      } else if (message.method === "tools/call" && handlers.callTool) {
        const uri = message.params?.name ?? "";
        const result = await handlers.callTool(
          { tool: { name: "kit-tool", type: "kit", uri }, arguments: message.params?.arguments ?? {} },
          contextOf(abort.signal),
        );
        complete(result);
      } else if (message.method === "resources/read" && handlers.readResource) {
        const uri = message.params?.uri ?? "";
        complete(
          await handlers.readResource(
            { resource: { location: uri, type: "", name: "" }, uri },
            contextOf(abort.signal),
          ),
        );
      } else {
        reply(404, { error: { code: -32601, message: `Method not found: ${message.method}` } });
      }
    } catch (error) {
      if (res.writableEnded || abort.signal.aborted) return;
      const failure = jsonRpcError(error);
      reply(200, { error: { code: failure.code, message: TrestleError.from(error).rawMessage } });
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    target: {
      id: `kit-modern-${port}`,
      serviceName: "kit",
      host: "127.0.0.1",
      port,
      serviceType: "multi-capability",
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describeTransportContract({
  name: "mcp transport ↔ an MCP 2026-07-28 server (stateless)",
  createTransport: () => addressingKitTools(createMcpTransport()),
  serve: serveOverModernMcp,
  deadTarget: async () => ({
    id: "dead-modern",
    serviceName: "dead",
    host: "127.0.0.1",
    port: await freePort(),
    serviceType: "multi-capability",
  }),
  expresses: {
    callFields: false,
    resourceFields: false,
    allErrorCodes: false,
    healthStates: false,
    codeExecution: false,
    provisioning: false,
  },
});
