import * as http from "node:http";
import * as https from "node:https";
import { Code, TrestleError } from "@trestle/core";
import type { AddressPolicy } from "./address-policy.js";

/** One outgoing request of the HTTP tool invoker. */
export interface HttpExchangeRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Names (lower-case) of headers to drop when a redirect leaves the original origin. */
  originBoundHeaders: ReadonlySet<string>;
}

/** What came back, after redirects. */
export interface HttpExchangeResponse {
  status: number;
  statusText: string;
  contentType: string;
  /** The body, up to the cap. */
  body: Buffer;
  /** True when the body was longer than the cap and cut there. */
  truncated: boolean;
  /** The URL that answered, after redirects. */
  url: URL;
}

/**
 * The connections an HTTP service keeps open between its calls, one pool per scheme. A call to an origin called
 * lately reuses an idle connection: no new TCP connection, and for https no new TLS handshake, which is a round trip
 * or two to a distant API and most of the service's CPU a call against a near one. Each new connection still
 * resolves through the address policy and connects to the addresses it checked.
 */
export interface ConnectionPools {
  http: http.Agent;
  https: https.Agent;
}

/**
 * How long a connection stays idle in its pool before it is closed; less when the server announces a shorter
 * `Keep-Alive: timeout` (Node closes it a second before the server would). Servers commonly keep idle connections 5 s
 * (Node, Apache) or longer (nginx 75 s).
 */
export const IDLE_CONNECTION_MS = 4_000;

/** New, empty {@link ConnectionPools}. Idle connections do not keep the process alive. */
export function createConnectionPools(): ConnectionPools {
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

/** Limits of an exchange. */
export interface HttpExchangeLimits {
  /** Where connections come from and go back to. */
  pools: ConnectionPools;
  policy: AddressPolicy;
  signal: AbortSignal;
  maxBodyBytes: number;
  maxRedirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers a redirect to another origin must not carry, whatever their source (as browsers do). */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** `origin + path` of a URL: what messages may name (a query string may carry a provisioned key). */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function sendOnce(
  request: HttpExchangeRequest,
  limits: HttpExchangeLimits,
): Promise<{ response: http.IncomingMessage; body: Buffer; truncated: boolean }> {
  limits.policy.checkHost(request.url.hostname);
  const secure = request.url.protocol === "https:";
  const transport = secure ? https : http;
  const headers = { ...request.headers };
  if (request.body !== undefined) headers["content-length"] = String(Buffer.byteLength(request.body));
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(request.url, {
      method: request.method,
      headers,
      // Every new connection resolves through the policy and connects to the addresses it checked.
      lookup: limits.policy.lookup,
      agent: secure ? limits.pools.https : limits.pools.http,
      signal: limits.signal,
    });
    let answered = false;
    outgoing.on("error", (error) => {
      // An idle connection the server closed as it was reused: the request never reached it, so it goes again, as
      // browsers do, on the next idle connection or a new one (a failure on a new connection is final).
      if (!answered && outgoing.reusedSocket && !limits.signal.aborted && isConnectionLost(error)) {
        sendOnce(request, limits).then(resolve, reject);
        return;
      }
      reject(error);
    });
    outgoing.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      response.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const room = limits.maxBodyBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          // Nothing more is read: the rest of a huge answer never crosses the wire into memory.
          response.destroy();
          resolve({ response, body: Buffer.concat(chunks), truncated });
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      response.on("end", () => resolve({ response, body: Buffer.concat(chunks), truncated }));
      response.on("error", (error) => {
        if (!truncated) reject(error);
      });
    });
    outgoing.end(request.body);
  });
}

/** A connection closed or reset under a request (`socket hang up` is an `ECONNRESET` too). */
function isConnectionLost(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ECONNRESET" || code === "EPIPE";
}

function asTrestleError(error: unknown, request: HttpExchangeRequest, signal: AbortSignal): TrestleError {
  if (error instanceof TrestleError) return error;
  if (signal.aborted) {
    const reason = signal.reason as Error | undefined;
    if (reason?.name === "TimeoutError") {
      return new TrestleError(
        `${request.method} ${describeUrl(request.url)} did not answer in time`,
        Code.Internal,
        { cause: error },
      );
    }
    return new TrestleError("The HTTP call was cancelled", Code.Canceled, { cause: error });
  }
  const code = (error as NodeJS.ErrnoException).code ?? "network error";
  // The upstream's failure, not this service's: see codeForHttpStatus.
  return new TrestleError(`${request.method} ${describeUrl(request.url)} failed: ${code}`, Code.Internal, {
    cause: error,
  });
}

/**
 * Sends a request and reads its answer up to `maxBodyBytes`, following up to `maxRedirects` redirects. Each
 * hop goes through the address policy again; a hop to another origin drops credential headers and the
 * headers named in `originBoundHeaders`; a 303 (and a 301/302 answering a POST) continues as a GET without
 * body.
 *
 * @throws TrestleError PermissionDenied (policy), Canceled (abort), Internal (timeout, network failure, too many
 *   redirects: failures of the upstream, which must not count against this service's health).
 */
export async function exchange(
  first: HttpExchangeRequest,
  limits: HttpExchangeLimits,
): Promise<HttpExchangeResponse> {
  let request = first;
  for (let hop = 0; ; hop++) {
    let result: Awaited<ReturnType<typeof sendOnce>>;
    try {
      result = await sendOnce(request, limits);
    } catch (error) {
      throw asTrestleError(error, request, limits.signal);
    }
    const { response } = result;
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(status) || location === undefined) {
      return {
        status,
        statusText: response.statusMessage ?? "",
        contentType: response.headers["content-type"] ?? "",
        body: result.body,
        truncated: result.truncated,
        url: request.url,
      };
    }
    if (hop >= limits.maxRedirects) {
      throw new TrestleError(
        `${describeUrl(first.url)} redirected more than ${limits.maxRedirects} times`,
        Code.Internal,
      );
    }
    const next = new URL(location, request.url);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new TrestleError(
        `A redirect led to a ${next.protocol} URL, which is not followed`,
        Code.Internal,
      );
    }
    const headers = { ...request.headers };
    if (next.origin !== first.url.origin) {
      for (const name of Object.keys(headers)) {
        const lower = name.toLowerCase();
        if (CREDENTIAL_HEADERS.includes(lower) || request.originBoundHeaders.has(lower)) delete headers[name];
      }
    }
    const becomesGet = status === 303 || ((status === 301 || status === 302) && request.method === "POST");
    if (becomesGet) {
      for (const name of Object.keys(headers))
        if (name.toLowerCase() === "content-type") delete headers[name];
    }
    request = {
      url: next,
      method: becomesGet ? "GET" : request.method,
      headers,
      ...(becomesGet || request.body === undefined ? {} : { body: request.body }),
      originBoundHeaders: request.originBoundHeaders,
    };
  }
}
