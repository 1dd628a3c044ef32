import { setMaxListeners } from "node:events";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import type { Duplex } from "node:stream";
import * as tls from "node:tls";
import { Code, ConnectError } from "@connectrpc/connect";
import { InFlightSet } from "@trestle/core/in-flight";
import type { CapabilityHandlers } from "@trestle/wanaku";

import { createCallSecretCheck } from "./call-secret.js";
import type { InFlightCalls } from "./capability-routes.js";
import { createConnectUnaryServer } from "./connect-unary-server.js";
import { createGrpcServer } from "./grpc-server.js";
import { sniffHttpVersion } from "./http-version-sniffer.js";
import {
  createHttp2StreamRouter,
  type Http2RequestListener,
  type Http2StreamListener,
} from "./http2-stream-router.js";
import { createLazyRequestListener } from "./lazy-request-listener.js";

/** TLS settings of a {@link CapabilityServer}. PEM text or buffers. */
export interface CapabilityServerTlsOptions {
  /** The server's certificate chain. */
  cert: string | Buffer;
  /** The server's private key. */
  key: string | Buffer;
  /** CAs that client certificates must chain to (mutual TLS). */
  ca?: string | Buffer;
  /** Refuse clients that present no certificate signed by `ca` (mutual TLS). Default false. */
  requireClientCert?: boolean;
}

/**
 * Options for {@link createCapabilityServer}: the handlers of the services it offers (any of the five; a
 * missing one answers `UNIMPLEMENTED`), and where and how to listen.
 */
export interface CapabilityServerOptions extends CapabilityHandlers {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one, which {@link CapabilityServer.listen} reports. */
  port?: number;
  /** Serve over TLS (HTTP/2 and HTTP/1.1 by ALPN) instead of cleartext. */
  tls?: CapabilityServerTlsOptions;
  /**
   * How long {@link CapabilityServer.close} lets calls in flight finish before it cancels them and drops the
   * connections. Default 5,000 ms.
   */
  closeTimeoutMs?: number;
  /**
   * A shared secret every call must carry in the `x-trestle-capability-secret` metadata (an HTTP header for
   * Connect and gRPC-Web), on every protocol and every service, health included. A call without it, or with
   * another value, fails with `UNAUTHENTICATED` before any handler runs; handlers never see the entry. Compared
   * in constant time. Unset (the default): calls need no secret. Pass it from the environment or a file, never
   * from the command line, which other users of the machine can read.
   */
  callSecret?: string;
  /**
   * The largest request message accepted, in bytes, on every protocol: a larger one (or one that grows past it
   * when decompressed) is refused with `RESOURCE_EXHAUSTED` before any handler runs, and no more of it is read.
   * Default {@link DEFAULT_MAX_REQUEST_BYTES} (64 MiB), well above the router's own 4 MiB request limit.
   */
  maxRequestBytes?: number;
}

/** The default of {@link CapabilityServerOptions.maxRequestBytes}: 64 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** Where a {@link CapabilityServer} listens. */
export interface CapabilityServerAddress {
  host: string;
  port: number;
}

/** A capability service serving gRPC, gRPC-Web and Connect on one port. */
export interface CapabilityServer {
  /** Starts listening. Rejects when the port cannot be bound or the server was already started. */
  listen(): Promise<CapabilityServerAddress>;
  /** Where it listens, once {@link CapabilityServer.listen} resolved. */
  address(): CapabilityServerAddress | undefined;
  /** How many TCP connections it has accepted since it started (to prove that clients reuse connections). */
  connectionCount(): number;
  /**
   * Stops accepting connections, lets calls in flight finish for up to `closeTimeoutMs`, then cancels what
   * is left (handlers see their signal abort) and closes every connection. Idempotent.
   */
  close(): Promise<void>;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;
/** After the grace period, how long cancelled calls get to flush their last bytes before sockets are cut. */
const FLUSH_AFTER_CANCEL_MS = 250;

/**
 * Creates a capability server for the given handlers. It serves the five Wanaku v1 services (for example
 * `/ai.wanaku.tool.v1.ToolInvoker/InvokeTool`) to gRPC, gRPC-Web and Connect clients, over HTTP/2 and HTTP/1.1,
 * on one port. A handler that throws a `TrestleError` answers with its code; anything else thrown answers
 * `INTERNAL` with its message.
 *
 * @example
 * ```ts
 * const server = createCapabilityServer({
 *   toolInvoker: async (request) => ({ content: [`hello ${request.arguments.name}`] }),
 * });
 * const { port } = await server.listen();
 * ```
 */
export function createCapabilityServer(options: CapabilityServerOptions): CapabilityServer {
  const host = options.host ?? "127.0.0.1";
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  const shutdown = new AbortController();
  // Connect links every call's signal to this one: many concurrent calls are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const rawSockets = new Set<net.Socket>();
  const http1Sockets = new Set<Duplex>();
  const sessions = new Set<http2.ServerHttp2Session>();
  let accepted = 0;
  let activeResponses = 0;
  let onResponsesDrained: (() => void) | undefined;
  let bound: CapabilityServerAddress | undefined;
  let listening = false;
  let closing: Promise<void> | undefined;

  let inFlightCalls = 0;
  /**
   * How to end each gRPC call in flight when the grace period runs out (Connect's follow the shutdown signal). An
   * InFlightSet, not a Set: its entries come and go with every call (see InFlightSet for what a Set would cost).
   */
  const cancellers = new InFlightSet<(reason: ConnectError) => void>();
  // A call ends in two steps that may come in either order: its handler returns, its HTTP response closes.
  function notifyIfDrained() {
    if (activeResponses === 0 && inFlightCalls === 0) onResponsesDrained?.();
  }
  const inFlight: InFlightCalls = {
    enter(cancel) {
      inFlightCalls++;
      const entry = cancel && cancellers.add(cancel);
      return () => {
        inFlightCalls--;
        if (entry) cancellers.delete(entry);
        notifyIfDrained();
      };
    },
  };
  const secretCheck =
    options.callSecret === undefined ? undefined : createCallSecretCheck(options.callSecret);
  // gRPC in protobuf, what Trestle's router and other gRPC clients send, served right on the HTTP/2 streams.
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  if (!Number.isSafeInteger(maxRequestBytes) || maxRequestBytes <= 0) {
    throw new Error(
      `maxRequestBytes must be a positive whole number of bytes; got ${String(maxRequestBytes)}`,
    );
  }
  const serveGrpc = createGrpcServer(options, inFlight, secretCheck, maxRequestBytes);
  // Connect unary in protobuf over HTTP/2, what Trestle's router sends over Connect, also right on the streams.
  const serveConnectUnary = createConnectUnaryServer(options, inFlight, secretCheck, maxRequestBytes);
  // Connect, gRPC-Web and gRPC with the JSON codec, over HTTP/1.1 and HTTP/2: connect-node, loaded on the first
  // request that needs it (a service only the router calls never does).
  const serveConnect = createLazyRequestListener("its Connect protocol support", async () => {
    const { createConnectListener } = await import("./connect-adapter.js");
    return createConnectListener(options, inFlight, shutdown.signal, secretCheck, maxRequestBytes);
  });

  function trackHttp1Response(request: http.IncomingMessage, response: http.ServerResponse) {
    activeResponses++;
    trackHttp1Socket(request.socket);
    response.once("close", () => {
      activeResponses--;
      notifyIfDrained();
    });
  }

  function trackHttp1Socket(socket: Duplex) {
    if (http1Sockets.has(socket)) return;
    http1Sockets.add(socket);
    socket.once("close", () => http1Sockets.delete(socket));
  }

  function trackSocket(socket: net.Socket) {
    accepted++;
    rawSockets.add(socket);
    socket.once("close", () => rawSockets.delete(socket));
  }

  // HTTP/2 connections, cleartext or TLS: each stream goes to the gRPC server or to connect-node by its content
  // type, and counts as a response in flight until it closes, whichever serves it.
  const h2 = http2.createServer();
  const routeStream = createHttp2StreamRouter(
    serveGrpc,
    serveConnectUnary,
    serveConnect as Http2RequestListener,
  );
  const onStream: Http2StreamListener = (stream, headers, flags, rawHeaders) => {
    activeResponses++;
    stream.once("close", () => {
      activeResponses--;
      notifyIfDrained();
    });
    routeStream(stream, headers, flags, rawHeaders);
  };
  h2.on("stream", onStream);
  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  h2.on("sessionError", () => undefined);
  // HTTP/1.1 connections. Long code execution streams must not be cut by Node's default five-minute request timeout.
  const h1 = http.createServer({ requestTimeout: 0 }, serveConnect as http.RequestListener);
  h1.on("request", trackHttp1Response);
  function serveHttp1(socket: Duplex) {
    trackHttp1Socket(socket);
    h1.emit("connection", socket);
  }

  let listener: net.Server;
  if (options.tls) {
    // HTTP/2 or HTTP/1.1 as ALPN decides; a client that offers no ALPN speaks HTTP/1.1.
    const secure = tls.createServer(
      {
        cert: options.tls.cert,
        key: options.tls.key,
        ...(options.tls.ca === undefined ? {} : { ca: options.tls.ca }),
        requestCert: options.tls.requireClientCert ?? false,
        rejectUnauthorized: options.tls.requireClientCert ?? false,
        ALPNProtocols: ["h2", "http/1.1"],
        noDelay: true,
      },
      (socket) => {
        if (socket.alpnProtocol === "h2") h2.emit("connection", socket);
        else serveHttp1(socket);
      },
    );
    secure.on("connection", trackSocket);
    // A client that fails the handshake (no certificate under mutual TLS) is the client's problem, not ours.
    secure.on("tlsClientError", () => undefined);
    listener = secure;
  } else {
    listener = net.createServer({ noDelay: true }, (socket) => {
      trackSocket(socket);
      sniffHttpVersion(socket, (handed, version) => {
        if (version === "2") h2.emit("connection", handed);
        else serveHttp1(handed);
      });
    });
  }

  function drained(): Promise<boolean> {
    if (activeResponses === 0 && inFlightCalls === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), closeTimeoutMs);
      onResponsesDrained = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  function socketsClosed(withinMs: number): Promise<void> {
    if (rawSockets.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, withinMs);
      const check = () => {
        if (rawSockets.size > 0) return;
        clearTimeout(timer);
        resolve();
      };
      for (const socket of rawSockets) socket.once("close", () => setImmediate(check));
    });
  }

  async function shutDown(): Promise<void> {
    const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
    // GOAWAY: HTTP/2 clients open no new streams here and move on, streams in flight go on.
    for (const session of sessions) session.close();
    if (!(await drained())) {
      const reason = new ConnectError("The capability server is shutting down", Code.Unavailable);
      shutdown.abort(reason);
      for (const cancel of cancellers.values()) cancel(reason);
      await new Promise((resolve) => setTimeout(resolve, FLUSH_AFTER_CANCEL_MS));
    }
    // Nothing is being answered any more: idle HTTP/1.1 keep-alive connections can go.
    for (const socket of http1Sockets) socket.end();
    await socketsClosed(FLUSH_AFTER_CANCEL_MS * 4);
    for (const socket of rawSockets) socket.destroy();
    for (const session of sessions) session.destroy();
    await stopped;
  }

  return {
    listen() {
      if (listening || closing) return Promise.reject(new Error("The capability server was already started"));
      listening = true;
      return new Promise<CapabilityServerAddress>((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        listener.once("error", onError);
        listener.listen(options.port ?? 0, host, () => {
          listener.removeListener("error", onError);
          const address = listener.address() as net.AddressInfo;
          bound = { host, port: address.port };
          resolve(bound);
        });
      });
    },
    address() {
      return bound;
    },
    connectionCount() {
      return accepted;
    },
    close() {
      if (!closing) {
        closing = listening ? shutDown() : Promise.resolve();
      }
      return closing;
    },
  };
}
