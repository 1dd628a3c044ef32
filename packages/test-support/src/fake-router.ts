import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A registration call the fake router received. */
export interface RouterCall {
  method: string;
  path: string;
  body: string;
}

/** The discovery endpoints of a router, recording what capability services send. */
export interface FakeRouter {
  url: string;
  calls: RouterCall[];
  /** Resolves with the first call matching, waiting at most `timeoutMs`. */
  waitFor(predicate: (call: RouterCall) => boolean, timeoutMs?: number): Promise<RouterCall>;
  close(): Promise<void>;
}

/** Starts a fake router that accepts every registration, assigning ids `svc-1`, `svc-2`, … */
export async function startFakeRouter(): Promise<FakeRouter> {
  const calls: RouterCall[] = [];
  const waiters = new Set<() => void>();
  let next = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const call = {
        method: request.method ?? "",
        path: request.url ?? "",
        body: Buffer.concat(chunks).toString(),
      };
      calls.push(call);
      for (const wake of waiters) wake();
      response.writeHead(200, { "content-type": "application/json" });
      if (call.method === "POST" && call.path === "/api/v1/management/discovery") {
        const target = JSON.parse(call.body) as Record<string, unknown>;
        next++;
        response.end(JSON.stringify({ error: null, data: { ...target, id: target.id ?? `svc-${next}` } }));
      } else {
        response.end(JSON.stringify({ error: null, data: null }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = calls.find(predicate);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the fake router saw no matching call; calls: ${JSON.stringify(calls)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
