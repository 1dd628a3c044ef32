import { connect, createServer, type Socket } from "node:net";

/** A loopback TCP proxy that a test can cut and restore, to take a connection away from one client only. */
export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones until {@link TcpProxy.restore}. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port that forwards to `targetPort`. */
export function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (typeof address !== "object" || address === null) {
        reject(new Error("the proxy has no port"));
        return;
      }
      resolve({
        port: address.port,
        cut() {
          open = false;
          for (const socket of [...sockets]) socket.destroy();
          sockets.clear();
        },
        restore() {
          open = true;
        },
        close() {
          open = false;
          for (const socket of [...sockets]) socket.destroy();
          return new Promise((done) => server.close(() => done()));
        },
      });
    });
  });
}
