/**
 * The bound "bound-mcp": a bare MCP SDK 1.32 server answering the echo tool in-process, stateful, with JSON
 * responses, on node:http, wired the way the SDK documents it (one `StreamableHTTPServerTransport` and one
 * `McpServer` per session, kept in a map by session id). It is the cost of MCP alone. Prints
 * `{"listening":PORT}` on stdout once it listens.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const transports = new Map<string, StreamableHTTPServerTransport>();

function newSessionServer(): McpServer {
  const server = new McpServer({ name: "bound-mcp", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Answers its text", inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        resolve(chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error);
      }
    });
    req.on("error", reject);
  });
}

const http = createServer(async (req, res) => {
  try {
    if (!req.url?.startsWith("/mcp")) {
      res.writeHead(404).end();
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    const body = req.method === "POST" ? await readJson(req) : undefined;
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport && sessionId === undefined && req.method === "POST" && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          transports.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await newSessionServer().connect(created);
      transport = created;
    }
    if (!transport) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32000, message: "Bad Request: no valid session" },
          id: null,
        }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  } catch (error) {
    if (!res.headersSent) res.writeHead(500).end(String(error));
  }
});

http.keepAliveTimeout = 65_000;
http.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ listening: (http.address() as AddressInfo).port })}\n`);
});

const stop = () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
