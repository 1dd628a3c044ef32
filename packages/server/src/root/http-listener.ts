import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Code, TrestleError } from "@trestle/core";
import type { Logger } from "pino";
import type { RouterConfig } from "../config.js";

/** The router's HTTP listener: where it listens, and how it stops taking requests. */
export interface HttpListener {
  /** `http://host:port`, with the port actually bound (0 when nothing listens). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections (those open finish what they do). */
  stopAccepting(): void;
  /** Closes every connection still open. */
  closeConnections(): void;
}

/** The sentence a router that cannot bind its port ends with: which port, and how to pick another. */
export function portTakenMessage(host: string, port: number): string {
  return `port ${port} on ${host} is taken by another program: start with --port <n> (or TRESTLE_PORT) to use another, or stop the other program`;
}

/**
 * Listens on `config.host` and `config.port` with `handle`: keep-alive and header timeouts for a router, at most
 * `maxConnections` connections (more are closed as they arrive, logged once per thousand), every answer naming the
 * worker when `workerId` is set. Without `listen` nothing listens (stdio only).
 */
export async function listenHttp(
  config: RouterConfig,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  options: { listen: boolean; workerId?: number; logger: Logger },
): Promise<HttpListener> {
  let http: HttpServer | undefined;
  let port = 0;
  if (options.listen) {
    const worker = options.workerId === undefined ? undefined : String(options.workerId);
    http = createServer(
      { keepAliveTimeout: 65_000, headersTimeout: 30_000, requestTimeout: 60_000 },
      worker === undefined
        ? (req, res) => void handle(req, res)
        : (req, res) => {
            res.setHeader("trestle-worker", worker);
            void handle(req, res);
          },
    );
    // Connections past the cap are closed as they arrive: each costs a file descriptor and buffers.
    http.maxConnections = config.maxConnections;
    let droppedConnections = 0;
    http.on("drop", () => {
      // The first, then one line per thousand: a flood must not become a flood of logs.
      if (droppedConnections++ % 1000 === 0)
        options.logger.warn(
          { maxConnections: config.maxConnections, dropped: droppedConnections },
          "connection refused: the router holds as many connections as it may",
        );
    });
    const server = http;
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          error.code === "EADDRINUSE"
            ? new TrestleError(portTakenMessage(config.host, config.port), Code.FailedPrecondition)
            : error,
        ),
      );
      server.listen(config.port, config.host, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  }
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    port,
    stopAccepting: () => http?.close(),
    closeConnections: () => http?.closeAllConnections(),
  };
}
