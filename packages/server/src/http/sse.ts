import type { ServerResponse } from "node:http";

/** A Server-Sent Events stream on an HTTP response. */
export interface SseStream {
  /** Sends one event; returns false once the stream is closed. */
  send(data: string, options?: { event?: string; id?: string }): boolean;
  /** Sends a comment (keeps proxies from timing the stream out). */
  comment(text: string): void;
  /** Ends the stream. */
  close(): void;
  readonly closed: boolean;
  /** Resolves when the stream ends, from either side. */
  readonly done: Promise<void>;
}

/**
 * Starts an SSE stream on `res`: writes the headers at once, and a keep-alive comment every
 * `keepAliveMs` (default 25 s).
 */
export function openSseStream(
  res: ServerResponse,
  options: { headers?: Record<string, string>; keepAliveMs?: number } = {},
): SseStream {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    ...options.headers,
  });
  res.flushHeaders();
  let closed = false;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const timer = setInterval(() => stream.comment("keep-alive"), options.keepAliveMs ?? 25_000);
  timer.unref();
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    resolveDone();
  };
  res.on("close", finish);
  const stream: SseStream = {
    send(data, o = {}) {
      if (closed) return false;
      let frame = "";
      if (o.event) frame += `event: ${o.event}\n`;
      if (o.id) frame += `id: ${o.id}\n`;
      for (const line of data.split("\n")) frame += `data: ${line}\n`;
      res.write(`${frame}\n`);
      return true;
    },
    comment(text) {
      if (!closed) res.write(`: ${text}\n\n`);
    },
    close() {
      if (closed) return;
      finish();
      res.end();
    },
    get closed() {
      return closed;
    },
    done,
  };
  return stream;
}
