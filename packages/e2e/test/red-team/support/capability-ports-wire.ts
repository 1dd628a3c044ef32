import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { HealthProbeReplySchema, RuntimeStatus, ToolInvokeReplySchema } from "@trestle/proto";

/**
 * Wire-level clients and a recording server for the capability-ports red-team test: raw HTTP/2 and fetch, no
 * RPC library, so an attacker's client is as plain as it gets and the recorder sees every header the router sends.
 */

/** What a Connect server stream answered: the messages, then the end-of-stream error if there was one. */
export interface ConnectStreamOutcome {
  httpStatus: number;
  messages: Record<string, unknown>[];
  error?: { code: string; message?: string };
}

function envelope(flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function* envelopes(body: Buffer): Generator<{ flags: number; payload: Buffer }> {
  let offset = 0;
  while (offset + 5 <= body.length) {
    const flags = body.readUInt8(offset);
    const length = body.readUInt32BE(offset + 1);
    yield { flags, payload: body.subarray(offset + 5, offset + 5 + length) };
    offset += 5 + length;
  }
}

/**
 * Calls a server-streaming method with the Connect protocol in JSON over HTTP/1.1 (`fetch`), as any script could.
 */
export async function connectServerStream(
  baseUrl: string,
  path: string,
  request: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ConnectStreamOutcome> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/connect+json", "connect-protocol-version": "1", ...headers },
    body: envelope(0, Buffer.from(JSON.stringify(request))),
  });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) {
    // Connect answers a refusal before the stream with an HTTP error status and a JSON error body.
    const error = JSON.parse(body.toString("utf8") || "{}") as { code: string; message?: string };
    return { httpStatus: response.status, messages: [], error };
  }
  const outcome: ConnectStreamOutcome = { httpStatus: 200, messages: [] };
  for (const { flags, payload } of envelopes(body)) {
    const parsed = JSON.parse(payload.toString("utf8")) as Record<string, unknown>;
    if (flags & 0x02) {
      if (parsed.error) outcome.error = parsed.error as { code: string; message?: string };
    } else outcome.messages.push(parsed);
  }
  return outcome;
}

/** What a gRPC call answered: its status, message and the payloads of the reply frames. */
export interface GrpcOutcome {
  grpcStatus: number;
  grpcMessage: string;
  frames: Buffer[];
}

/** Calls a method with the gRPC protocol (protobuf bytes in, reply frames out) over cleartext HTTP/2. */
export async function grpcCall(
  baseUrl: string,
  path: string,
  request: Uint8Array,
  headers: Record<string, string> = {},
): Promise<GrpcOutcome> {
  const session = http2.connect(baseUrl);
  try {
    return await new Promise<GrpcOutcome>((resolve, reject) => {
      session.once("error", reject);
      const stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc+proto",
        te: "trailers",
        ...headers,
      });
      const chunks: Buffer[] = [];
      let status: Record<string, unknown> = {};
      stream.on("response", (h) => {
        status = { ...h };
      });
      stream.on("trailers", (t) => {
        status = { ...status, ...t };
      });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.once("error", reject);
      stream.once("end", () =>
        resolve({
          grpcStatus: Number(status["grpc-status"] ?? -1),
          grpcMessage: decodeURIComponent(String(status["grpc-message"] ?? "")),
          frames: [...envelopes(Buffer.concat(chunks))].map((e) => e.payload),
        }),
      );
      stream.end(envelope(0, Buffer.from(request)));
    });
  } finally {
    session.close();
  }
}

/** A capability that answers health probes and tool calls over gRPC and keeps every request's headers. */
export interface MetadataRecorder {
  port: number;
  /** The headers of every request, in order, with the method path. */
  requests: { path: string; headers: http2.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/**
 * Starts a fake capability on 127.0.0.1 speaking just enough gRPC for a router: `GetStatus` answers started,
 * `InvokeTool` answers one line of text. It records every header it is sent, which a capability built with
 * `@trestle/capability` would hide from its handlers.
 */
export async function startMetadataRecorder(): Promise<MetadataRecorder> {
  const requests: MetadataRecorder["requests"] = [];
  const replies: Record<string, Uint8Array> = {
    "/ai.wanaku.health.v1.HealthProbe/GetStatus": toBinary(
      HealthProbeReplySchema,
      create(HealthProbeReplySchema, { status: RuntimeStatus.STARTED }),
    ),
    "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool": toBinary(
      ToolInvokeReplySchema,
      create(ToolInvokeReplySchema, { content: ["recorded"] }),
    ),
  };
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    const path = String(headers[":path"]);
    requests.push({ path, headers });
    stream.on("data", () => undefined);
    stream.once("end", () => {
      const reply = replies[path];
      if (!reply) {
        stream.respond(
          { ":status": 200, "content-type": "application/grpc", "grpc-status": "12" },
          { endStream: true },
        );
        return;
      }
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(envelope(0, Buffer.from(reply)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The router keeps its channel open; the server closes only once its sessions are gone.
        for (const session of sessions) session.destroy();
      }),
  };
}
