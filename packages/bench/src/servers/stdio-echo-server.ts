/**
 * An MCP server over stdio with the same echo tool, on the MCP SDK 1.32: what the peer gateways (`supergateway`,
 * `mcp-proxy`) front in the benchmark.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "stdio-echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Answers its text", inputSchema: { text: z.string() } },
  ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
