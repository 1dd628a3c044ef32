import * as http from "node:http";
import type { AddressInfo } from "node:net";

/** A request the fake router received. */
export interface RouterRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** A small real HTTP server that answers the Wanaku discovery API as a router does, recording every request. */
export interface FakeRouter {
  url: string;
  /** Every request, in arrival order (refused ones too). */
  requests: RouterRequest[];
  /** Registered services by id. */
  services: Map<string, Record<string, unknown>>;
  /** Resolves with the first request matching, waiting at most `timeoutMs` (default 10,000). */
  waitFor(predicate: (request: RouterRequest) => boolean, timeoutMs?: number): Promise<RouterRequest>;
  /** Forgets every registration, as a router restarted without a store would. */
  forget(): void;
  /** Stops answering: closes the listener and drops every connection. */
  down(): Promise<void>;
  /** Answers again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

function envelope(response: http.ServerResponse, status: number, data: unknown, error?: string) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: error === undefined ? null : { message: error }, data }));
}

/**
 * Starts a fake router on a free loopback port. It registers a service under the id it sends, or assigns
 * `svc-1`, `svc-2`, …; answers a heartbeat for an unknown id with 404; deregisters on `DELETE`. With `token`,
 * it refuses calls without `Bearer <token>` (401).
 */
export async function startFakeRouter(token?: string): Promise<FakeRouter> {
  const requests: RouterRequest[] = [];
  const services = new Map<string, Record<string, unknown>>();
  const waiters = new Set<() => void>();
  let assigned = 0;
  const server = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const path = request.url ?? "";
      requests.push({
        method: request.method ?? "",
        path,
        authorization: request.headers.authorization,
        contentType: request.headers["content-type"],
        body,
      });
      for (const wake of waiters) wake();
      if (token !== undefined && request.headers.authorization !== `Bearer ${token}`) {
        envelope(response, 401, null, "Unauthorized");
        return;
      }
      if (path === "/api/v1/management/discovery" && request.method === "POST") {
        const target = JSON.parse(body) as Record<string, unknown>;
        const id = typeof target.id === "string" ? target.id : `svc-${++assigned}`;
        services.set(id, { ...target, id });
        envelope(response, 200, { ...target, id });
      } else if (path === "/api/v1/management/discovery/heartbeats" && request.method === "POST") {
        if (services.has(body)) envelope(response, 200, null);
        else envelope(response, 404, null, `Service ${body} not found`);
      } else if (path === "/api/v1/management/discovery" && request.method === "DELETE") {
        const target = JSON.parse(body) as { id?: string };
        services.delete(target.id ?? "");
        envelope(response, 200, null);
      } else {
        envelope(response, 404, null, "No such endpoint");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  async function down(): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    services,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = requests.find(predicate);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the fake router saw no matching request; requests: ${JSON.stringify(requests)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    forget() {
      services.clear();
    },
    down,
    async up() {
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
    async close() {
      if (server.listening) await down();
    },
  };
}
