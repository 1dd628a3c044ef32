import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSessionFetch } from "./http-fetch.js";

let server: Server | undefined;

afterEach(async () => {
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

/** A server that answers JSON, an event stream that never ends, or 202, by the path. */
async function listen(): Promise<URL> {
  const listening = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write('data: {"first":true}\n\n');
        return;
      }
      if (req.url === "/accepted") {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
      res.end(
        JSON.stringify({ echoed: Buffer.concat(chunks).toString("utf8"), auth: req.headers.authorization }),
      );
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/mcp`);
}

const refuse: typeof fetch = async () => {
  throw new Error("the fallback was used");
};

describe("createSessionFetch", () => {
  it("POSTs with the request's headers and answers with status, headers and body", async () => {
    const url = await listen();
    const session = createSessionFetch(url, refuse);
    const response = await session.fetch(url, {
      method: "POST",
      headers: new Headers({ authorization: "Bearer t", "content-type": "application/json" }),
      body: '{"jsonrpc":"2.0"}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBe("s-1");
    expect(await response.json()).toEqual({ echoed: '{"jsonrpc":"2.0"}', auth: "Bearer t" });
    const accepted = await session.fetch(new URL("/accepted", url), { method: "POST", body: "{}" });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toBeNull();
    session.destroy();
  });

  it("keeps one listener on a shared signal, and its abort ends the streams in flight", async () => {
    const url = await listen();
    const session = createSessionFetch(url, refuse);
    const shared = new AbortController();
    const streams = await Promise.all(
      Array.from({ length: 20 }, () =>
        session.fetch(new URL("/stream", url), { method: "POST", body: "{}", signal: shared.signal }),
      ),
    );
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(1);
    const reader = streams[0]?.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toContain('"first":true');
    shared.abort(new Error("session closed"));
    await expect(reader?.read()).rejects.toThrow();
    session.destroy();
  });

  it("sends what is not a POST with a string body to the fallback", async () => {
    const url = await listen();
    const seen: string[] = [];
    const session = createSessionFetch(url, async (_input, init) => {
      seen.push(init?.method ?? "GET");
      return new Response(null, { status: 204 });
    });
    await session.fetch(url, { method: "GET" });
    await session.fetch(url, { method: "DELETE" });
    expect(seen).toEqual(["GET", "DELETE"]);
    session.destroy();
  });

  it("rejects a refused connection as fetch does, with the system code in its cause", async () => {
    const url = await listen();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    const session = createSessionFetch(url, refuse);
    const failure = await session.fetch(url, { method: "POST", body: "{}" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError & { cause: { code?: string } }).cause.code).toBe("ECONNREFUSED");
    session.destroy();
  });
});
