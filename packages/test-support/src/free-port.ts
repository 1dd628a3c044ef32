import { createServer } from "node:net";

/**
 * A loopback port that was free a moment ago, for a process that must come back on the same port after a
 * restart, or that cannot be told to listen on port 0 and report it (everything else listens on port 0).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
