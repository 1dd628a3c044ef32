/**
 * Reaching an upstream over HTTP: its URL checked, and a fetch that ties each server-to-client request on a
 * POST's stream to the call that POST made.
 */

import { Code, TrestleError } from "@trestle/core";
import { createParser } from "eventsource-parser";
import type { FailureSubject } from "./mcp-failure.js";
import type { McpUpstream } from "./mcp-upstream.js";

/**
 * The upstream's URL, parsed. @throws TrestleError InvalidArgument when it cannot be parsed, or holds a user name
 * or password (fetch refuses to send those; credentials go in a header).
 */
export function parseUrl(upstream: Extract<McpUpstream, { kind: "http" }>, subject: FailureSubject): URL {
  let url: URL;
  try {
    url = new URL(upstream.url);
  } catch {
    throw new TrestleError(
      `The MCP server ${subject.label} has a URL that cannot be parsed`,
      Code.InvalidArgument,
    );
  }
  if (url.username || url.password) {
    throw new TrestleError(
      `The URL of the MCP server ${subject.label} holds a user name or password, which fetch refuses to send; pass credentials in a header instead`,
      Code.InvalidArgument,
    );
  }
  return url;
}

/**
 * A fetch for the SDK's HTTP transport that gives each request a signal of its own, following the one it was
 * given. The SDK passes every request the same signal (its session's, aborted at close), and undici's `Request`
 * adds an abort listener to it that goes only when the request is garbage-collected: on a busy session they pile
 * up in the thousands, each new one costs a walk of the list, and past 1,500 Node prints a warning with a stack
 * trace per request. A dependent signal (`AbortSignal.any`) is held weakly by the session's, so its listener
 * goes with the request, and closing the session still aborts every request in flight.
 */
export function ownSignalFetch(inner: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const signal = init?.signal;
    if (!signal) return inner(input, init);
    return inner(input, { ...init, signal: AbortSignal.any([signal]) });
  };
}

/**
 * A fetch for the SDK's HTTP transport that reads along the SSE stream of each POST and records which request of
 * the server arrived on the stream of which of our requests (by the request's progress token): on Streamable
 * HTTP, a server sends a request for input on the stream of the call it belongs to.
 */
export function correlatingFetch(
  origins: Map<string | number, string>,
  inner: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (init?.method !== "POST" || typeof init.body !== "string" || !response.body) return response;
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
    let token: string | undefined;
    try {
      const sent = JSON.parse(init.body) as { params?: { _meta?: { progressToken?: unknown } } };
      const candidate = sent.params?._meta?.progressToken;
      if (typeof candidate === "string") token = candidate;
    } catch {
      return response;
    }
    if (token === undefined) return response;
    const owner = token;
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent: ({ data }) => {
        try {
          const message = JSON.parse(data) as { id?: unknown; method?: unknown };
          if (
            typeof message.method === "string" &&
            (typeof message.id === "string" || typeof message.id === "number")
          ) {
            origins.set(message.id, owner);
          }
        } catch {
          // Not JSON: the SDK's parser will say so.
        }
      },
    });
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(tap), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
