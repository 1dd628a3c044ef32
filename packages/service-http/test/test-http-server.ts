import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the test server saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A local HTTP server standing in for the APIs that HTTP tools call. */
export interface TestHttpServer {
  origin: string;
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Routes: `/status/CODE` answers that status with a text body; `/big/N` answers N bytes of `x`;
 * `/redirect?to=PATH` answers 302; `/hang` never answers; anything else echoes the request as JSON.
 */
export async function startTestHttpServer(): Promise<TestHttpServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const entry = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(entry);
      const url = new URL(entry.url, "http://test");
      const [, route, arg] = url.pathname.split("/");
      if (route === "status") {
        response.writeHead(Number(arg), { "content-type": "text/plain" });
        response.end(`upstream says no\n${"detail ".repeat(100)}`);
      } else if (route === "big") {
        response.writeHead(200, { "content-type": "text/plain" });
        response.end("x".repeat(Number(arg)));
      } else if (route === "redirect") {
        response.writeHead(302, { location: url.searchParams.get("to") ?? "/" });
        response.end();
      } else if (route === "hang") {
        // Never answers: the caller's deadline has to end it.
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(entry));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
