import { setMaxListeners } from "node:events";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import type { Duplex } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { CapabilityHandlers } from "@trestle/core";
import { capabilityRoutes } from "./capability-routes.js";
import { sniffHttpVersion } from "./http-version-sniffer.js";

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
}

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
  // A call ends in two steps that may come in either order: its handler returns, its HTTP response closes.
  function notifyIfDrained() {
    if (activeResponses === 0 && inFlightCalls === 0) onResponsesDrained?.();
  }
  const adapter = connectNodeAdapter({
    routes: capabilityRoutes(options, {
      enter() {
        inFlightCalls++;
        return () => {
          inFlightCalls--;
          notifyIfDrained();
        };
      },
    }),
    shutdownSignal: shutdown.signal,
  });

  function trackResponse(
    request: http.IncomingMessage | http2.Http2ServerRequest,
    response: Duplex | object,
  ) {
    activeResponses++;
    if (request.httpVersionMajor === 1) trackHttp1Socket(request.socket);
    (response as NodeJS.EventEmitter).once("close", () => {
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

  let listener: net.Server;
  if (options.tls) {
    const secure = http2.createSecureServer(
      {
        cert: options.tls.cert,
        key: options.tls.key,
        ...(options.tls.ca === undefined ? {} : { ca: options.tls.ca }),
        requestCert: options.tls.requireClientCert ?? false,
        rejectUnauthorized: options.tls.requireClientCert ?? false,
        allowHTTP1: true,
      },
      adapter,
    );
    secure.on("connection", trackSocket);
    secure.on("request", trackResponse);
    secure.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    secure.on("secureConnection", (socket) => {
      if (socket.alpnProtocol !== "h2") trackHttp1Socket(socket);
    });
    // A client that fails the handshake (no certificate under mutual TLS) is the client's problem, not ours.
    secure.on("tlsClientError", () => undefined);
    secure.on("sessionError", () => undefined);
    listener = secure;
  } else {
    const h2 = http2.createServer(adapter);
    h2.on("request", trackResponse);
    h2.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    h2.on("sessionError", () => undefined);
    // Long code execution streams must not be cut by Node's default five-minute request timeout.
    const h1 = http.createServer({ requestTimeout: 0 }, adapter);
    h1.on("request", trackResponse);
    listener = net.createServer({ noDelay: true }, (socket) => {
      trackSocket(socket);
      sniffHttpVersion(socket, (handed, version) => {
        if (version === "2") h2.emit("connection", handed);
        else {
          trackHttp1Socket(handed);
          h1.emit("connection", handed);
        }
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
      shutdown.abort(new ConnectError("The capability server is shutting down", Code.Unavailable));
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
      if (!closing) closing = listening ? shutDown() : Promise.resolve();
      return closing;
    },
  };
}
