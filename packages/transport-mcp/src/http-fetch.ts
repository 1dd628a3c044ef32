/**
 * The fetch a legacy HTTP session's SDK transport sends with: its POSTs (every request and notification) go over
 * node's own HTTP client on a keep-alive agent, which costs a fraction of undici's fetch per call; anything else
 * (the GET event stream, the DELETE at close) goes to `fetch`.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A fetch for one upstream, and the end of its idle connections. */
export interface SessionFetch {
  fetch: typeof fetch;
  /** Closes the agent's connections (the session is over). */
  destroy(): void;
}

/** The request's headers as a plain object (names lower-cased, as `Headers` keeps them). */
function plainHeaders(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  for (const [name, value] of new Headers(headers)) out[name] = value;
  return out;
}

function responseHeaders(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

async function readAll(body: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A `Response` for `response`: an event stream stays a stream (the SDK reads it as it comes); any other body is
 * read whole first, which a JSON answer is anyway.
 */
async function toResponse(response: IncomingMessage): Promise<Response> {
  const status = response.statusCode ?? 0;
  const init = { status, statusText: response.statusMessage ?? "", headers: responseHeaders(response) };
  if (NULL_BODY_STATUSES.has(status)) {
    response.resume();
    return new Response(null, init);
  }
  const type = response.headers["content-type"] ?? "";
  if (type.includes("text/event-stream")) {
    return new Response(Readable.toWeb(response) as ReadableStream<Uint8Array>, init);
  }
  const body = await readAll(response);
  return new Response(body.length === 0 ? null : body, init);
}

/**
 * The requests in flight under each signal, ended by one listener of its own: the SDK passes every request its
 * session's one signal, which would otherwise carry a listener per request in flight.
 */
type InFlight = WeakMap<AbortSignal, Set<ClientRequest>>;

function watch(inFlight: InFlight, signal: AbortSignal, request: ClientRequest): void {
  let requests = inFlight.get(signal);
  if (requests === undefined) {
    const watched = new Set<ClientRequest>();
    requests = watched;
    inFlight.set(signal, watched);
    signal.addEventListener(
      "abort",
      () => {
        for (const each of watched) each.destroy(signal.reason);
        watched.clear();
      },
      { once: true },
    );
  }
  requests.add(request);
  const mine = requests;
  request.once("close", () => mine.delete(request));
}

/**
 * POSTs with node's HTTP client. A network failure rejects as `fetch` would (a `TypeError` whose `cause` carries
 * the system code, which the failure mapping reads); an abort rejects with the signal's reason and ends the
 * response's stream too.
 */
function post(
  url: URL,
  agent: HttpAgent,
  init: RequestInit,
  body: string,
  inFlight: InFlight,
): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: "POST",
        agent,
        headers: { ...plainHeaders(init.headers), "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        toResponse(response).then(resolve, (error: unknown) =>
          reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error })),
        );
      },
    );
    if (signal) watch(inFlight, signal, request);
    request.on("error", (error: Error) => {
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    request.end(body);
  });
}

/**
 * A fetch for the SDK's Streamable HTTP client transport to `url`'s origin: a POST with a string body goes over a
 * keep-alive agent of its own; every other request goes to `fallback`. Redirects are returned as they are
 * (`redirect: "manual"`), which is how the SDK asks: it follows those within the origin itself.
 */
export function createSessionFetch(url: URL, fallback: typeof fetch): SessionFetch {
  const inFlight: InFlight = new WeakMap();
  const agent =
    url.protocol === "https:" ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const sessionFetch: typeof fetch = (input, init) => {
    const target = typeof input === "string" ? new URL(input) : input instanceof URL ? input : undefined;
    if (target === undefined || init?.method !== "POST" || typeof init.body !== "string") {
      return fallback(input, init);
    }
    return post(target, agent, init, init.body, inFlight);
  };
  return { fetch: sessionFetch, destroy: () => agent.destroy() };
}
