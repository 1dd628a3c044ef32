import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { fetchRouterRequest, MAX_ANSWER_BYTES, nodeRouterRequest } from "../src/router-request.js";

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/x`);
}

const init = (signal = new AbortController().signal) => ({
  method: "POST",
  headers: { "content-type": "text/plain", authorization: "Bearer t" },
  body: "héllo",
  signal,
});

describe("the router request over node:http", () => {
  it("sends the method, headers and body, and answers the status and the body's text", async () => {
    let seen: { method?: string; auth?: string; length?: string; body: string } = { body: "" };
    const url = await serve((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        seen = {
          method: req.method,
          auth: req.headers.authorization,
          length: req.headers["content-length"],
          body,
        };
        res.writeHead(409, { "content-type": "application/json" }).end('{"error":{"message":"taken"}}');
      });
    });
    expect(await nodeRouterRequest(url, init())).toEqual({
      status: 409,
      text: '{"error":{"message":"taken"}}',
    });
    expect(seen).toEqual({ method: "POST", auth: "Bearer t", length: "6", body: "héllo" });
  });

  it("keeps only the first part of an oversized answer and still reads it to its end", async () => {
    const url = await serve((_req, res) => res.end("x".repeat(MAX_ANSWER_BYTES * 3)));
    const answer = await nodeRouterRequest(url, init());
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBe(MAX_ANSWER_BYTES);
  });

  it("fails when its signal aborts while the router is silent", async () => {
    const url = await serve(() => undefined);
    await expect(nodeRouterRequest(url, init(AbortSignal.timeout(50)))).rejects.toThrow();
  });

  it("fails when the router drops the connection in the middle of its answer", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial");
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await expect(nodeRouterRequest(url, init())).rejects.toThrow();
  });

  it("fails with the connection's error when nothing listens", async () => {
    const url = await serve(() => undefined);
    const closed = servers.pop() as Server;
    await new Promise((resolve) => closed.close(resolve));
    await expect(nodeRouterRequest(url, init())).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("the router request through a given fetch", () => {
  it("answers the status and the text of the fetch's response", async () => {
    const url = await serve((_req, res) => res.writeHead(201).end("made"));
    expect(await fetchRouterRequest(fetch)(url, init())).toEqual({ status: 201, text: "made" });
  });
});
