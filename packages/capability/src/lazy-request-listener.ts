import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";

/** An HTTP request listener for HTTP/1.1 and for HTTP/2 through Node's compatibility API. */
export type RequestListener = (
  request: IncomingMessage | Http2ServerRequest,
  response: ServerResponse | Http2ServerResponse,
) => void;

/**
 * A request listener that loads the real one on the first request and serves every request with it from then on.
 * Requests that arrive while it loads wait (their bodies stay unread, so the client is held back by flow
 * control) and are served once it has loaded. When loading fails, the waiting requests are answered with HTTP
 * 503 and a message saying what failed, and the next request tries again.
 */
export function createLazyRequestListener(
  what: string,
  load: () => Promise<RequestListener>,
): RequestListener {
  let loaded: RequestListener | undefined;
  let loading: Promise<RequestListener> | undefined;
  return (request, response) => {
    if (loaded) {
      loaded(request, response);
      return;
    }
    loading ??= load().then(
      (listener) => {
        loaded = listener;
        return listener;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    loading.then(
      (listener) => listener(request, response),
      (error: unknown) => {
        if (response.headersSent || response.writableEnded) return;
        const reason = error instanceof Error ? error.message : String(error);
        try {
          response.writeHead(503, { "content-type": "text/plain; charset=utf-8" });
          response.end(`The capability server could not load ${what}: ${reason}`);
        } catch {
          // The caller has gone: nobody to tell.
        }
      },
    );
  };
}
