/**
 * The floor: the least a router can do to answer an MCP `tools/call` from a gRPC capability. `node:http` in, one
 * `node:http2` session out, the request and reply in protobuf with the compiled codec, and nothing else — no
 * session check, no catalog, no argument validation, no events, no interceptors, no limits. It is issue 19's
 * measuring stick, run in the same rounds as the router so that the report shows how far above the floor the
 * router's own work puts it. Not a server anyone should deploy: it trusts every request.
 */
import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import { type ClientHttp2Session, connect, constants, type IncomingHttpHeaders } from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { ToolInvokeReplySchema, ToolInvokeRequestSchema } from "@trestle/proto";
import { compileMessageCodec } from "@trestle/protobuf-codec";

/** Where the floor listens and what it calls. */
export interface FloorRouterOptions {
  /** The echo capability's gRPC address. */
  capability: { host: string; port: number };
  /** The port to listen on (0: any free one). */
  port?: number;
}

/** A running floor router. */
export interface FloorRouter {
  /** Its MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

const INVOKE_TOOL_PATH = "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool";
const JSON_HEADERS = { "content-type": "application/json" };

/** Starts the floor router: one HTTP/2 session to the capability, opened now and again if it closes. */
export async function startFloorRouter(options: FloorRouterOptions): Promise<FloorRouter> {
  const requestCodec = compileMessageCodec(ToolInvokeRequestSchema);
  const replyCodec = compileMessageCodec(ToolInvokeReplySchema);
  const authority = `http://${options.capability.host}:${options.capability.port}`;
  let session: ClientHttp2Session | undefined;
  const sessionNow = () => {
    if (session === undefined || session.closed || session.destroyed) {
      const opened = connect(authority);
      opened.on("error", () => undefined);
      opened.on("close", () => {
        if (session === opened) session = undefined;
      });
      session = opened;
    }
    return session;
  };

  /** One unary InvokeTool call: its reply's content, or the gRPC status as an error. */
  const invokeTool = (name: string, args: Record<string, unknown>) =>
    new Promise<string[]>((resolve, reject) => {
      const argumentsAsStrings: Record<string, string> = {};
      for (const key in args) {
        const value = args[key];
        argumentsAsStrings[key] = typeof value === "string" ? value : JSON.stringify(value);
      }
      const stream = sessionNow().request({
        [constants.HTTP2_HEADER_METHOD]: "POST",
        [constants.HTTP2_HEADER_PATH]: INVOKE_TOOL_PATH,
        "content-type": "application/grpc",
        te: "trailers",
      });
      const chunks: Buffer[] = [];
      let status: string | undefined;
      let message: string | undefined;
      // In the trailers, or in the headers of a trailers-only failure.
      const readStatus = (headers: IncomingHttpHeaders) => {
        status = headers["grpc-status"] as string | undefined;
        message = headers["grpc-message"] as string | undefined;
      };
      stream.on("response", readStatus);
      stream.on("trailers", readStatus);
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", reject);
      // A stream reset without an error (or a session gone) ends with `close` alone.
      stream.on("close", () => reject(new Error("the capability's stream closed before its reply")));
      stream.on("end", () => {
        if (status !== "0") return reject(new Error(`gRPC status ${status}: ${message ?? ""}`));
        const frame = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        if (frame.length < 5) return reject(new Error("the capability's reply held no message"));
        try {
          resolve(replyCodec.decode(frame.subarray(5, 5 + frame.readUInt32BE(1))).content);
        } catch (error) {
          reject(error);
        }
      });
      stream.end(
        requestCodec.encodeFramed(
          create(ToolInvokeRequestSchema, { uri: `floor://${name}`, arguments: argumentsAsStrings }),
        ),
      );
    });

  /** Writes one JSON-RPC message (`{ id, result }` or `{ id, error }`) as the whole response. */
  const reply = (res: ServerResponse, status: number, message: Record<string, unknown>) =>
    res.writeHead(status, JSON_HEADERS).end(JSON.stringify({ jsonrpc: "2.0", ...message }));
  const answer = (res: ServerResponse, id: unknown, result: unknown) => reply(res, 200, { id, result });

  const onPost = async (body: string, res: ServerResponse) => {
    const message = JSON.parse(body) as {
      id?: unknown;
      method: string;
      params?: { name?: string; arguments?: Record<string, unknown>; protocolVersion?: string };
    };
    if (message.id === undefined) return void res.writeHead(202).end();
    switch (message.method) {
      case "initialize":
        res.setHeader("mcp-session-id", randomUUID());
        return answer(res, message.id, {
          protocolVersion: message.params?.protocolVersion ?? "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "floor", version: "1.0.0" },
        });
      case "tools/call": {
        try {
          const content = await invokeTool(message.params?.name ?? "", message.params?.arguments ?? {});
          return answer(res, message.id, { content: content.map((text) => ({ type: "text", text })) });
        } catch (error) {
          return answer(res, message.id, {
            content: [{ type: "text", text: (error as Error).message }],
            isError: true,
          });
        }
      }
      default:
        return reply(res, 200, {
          id: message.id,
          error: { code: -32601, message: `${message.method} is not served by the floor` },
        });
    }
  };

  const server = createServer((req, res) => {
    if (req.method === "POST") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        onPost(body, res).catch((error: unknown) => {
          if (res.headersSent) res.end();
          else reply(res, 400, { id: null, error: { code: -32700, message: String(error) } });
        });
      });
    } else if (req.method === "GET") {
      // The client's stream for server messages: the floor never sends one.
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
    } else res.writeHead(req.method === "DELETE" ? 200 : 405).end();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  sessionNow();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      session?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
