import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

/** A router's answer to one management call: its HTTP status and its body as text. */
export interface RouterAnswer {
  status: number;
  /** The body, cut at {@link MAX_ANSWER_BYTES}. */
  text: string;
}

/** One call to the router's management API. */
export type RouterRequest = (
  url: URL,
  init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<RouterAnswer>;

/**
 * The most of an answer body kept. A registration answer is one small JSON envelope; a larger body is read to
 * its end (so the connection can be reused) and only its first part kept.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends one request with `node:http` / `node:https`. A capability service talks to its router a few times a
 * minute (register, heartbeat, deregister); the global `fetch` would load undici and compile its WebAssembly
 * HTTP parser for that, about 6 MiB resident in every service process, where `node:http` is already loaded by
 * the server. Honours `NODE_EXTRA_CA_CERTS` as `fetch` does; the signal aborts the request and its answer.
 */
export const nodeRouterRequest: RouterRequest = (url, init) =>
  new Promise<RouterAnswer>((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const outgoing = send(url, {
      method: init.method,
      headers: { ...init.headers, "content-length": Buffer.byteLength(init.body) },
      signal: init.signal,
      // A new connection per call: calls come seconds apart, longer than a server keeps an idle one, and reusing a
      // connection the router is closing would fail the call.
      agent: false,
    });
    // `on`, not `once`: an error after the first (the socket's, after an abort) must not go unhandled.
    outgoing.on("error", reject);
    outgoing.once("response", (incoming: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      incoming.on("data", (chunk: Buffer) => {
        if (kept >= MAX_ANSWER_BYTES) return;
        chunks.push(chunk);
        kept += chunk.length;
      });
      incoming.on("error", reject);
      incoming.once("close", () => {
        if (!incoming.complete) reject(new Error("the router's answer was cut short"));
      });
      incoming.once("end", () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: incoming.statusCode ?? 0,
          text: body.subarray(0, MAX_ANSWER_BYTES).toString("utf8"),
        });
      });
    });
    outgoing.end(init.body);
  });

/** The same call through a `fetch` the caller provides (a proxy's, a test's). */
export function fetchRouterRequest(doFetch: typeof fetch): RouterRequest {
  return async (url, init) => {
    const response = await doFetch(url, init);
    return { status: response.status, text: (await response.text()).slice(0, MAX_ANSWER_BYTES) };
  };
}
