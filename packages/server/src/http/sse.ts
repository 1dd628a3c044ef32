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
  /** True when the stream was closed because its reader fell too far behind (see `maxBufferedBytes`). */
  readonly dropped: boolean;
  /** Resolves when the stream ends, from either side. */
  readonly done: Promise<void>;
}

/** Options for {@link openSseStream}. */
export interface SseStreamOptions {
  headers?: Record<string, string>;
  /** Keep-alive comment interval; default 25 s. */
  keepAliveMs?: number;
  /**
   * Bytes the stream may hold in memory for a reader that does not keep up (written, not yet taken by the
   * socket); beyond it the reader is dropped: the connection is destroyed. Default {@link DEFAULT_SSE_MAX_BUFFERED_BYTES}.
   */
  maxBufferedBytes?: number;
  /** Called once when the reader is dropped for being too slow. */
  onDropped?(bufferedBytes: number): void;
}

/** The default bound on what a slow SSE reader may leave buffered in the router: 1 MiB. */
export const DEFAULT_SSE_MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Starts an SSE stream on `res`: writes the headers at once, and a keep-alive comment every `keepAliveMs` (default
 * 25 s). Frames sent in one turn of the event loop are written together at its end. Writes respect back-pressure:
 * what the socket has not taken yet stays in `res`'s buffer, and once that buffer holds more than
 * `maxBufferedBytes` the reader is too slow to be served: the connection is destroyed (never an unbounded queue in
 * the router) and `send` returns false from then on.
 */
export function openSseStream(res: ServerResponse, options: SseStreamOptions = {}): SseStream {
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_SSE_MAX_BUFFERED_BYTES;
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
  /** Set while frames are held for one write at the end of this turn of the event loop. */
  let flush: NodeJS.Immediate | undefined;
  const uncork = () => {
    flush = undefined;
    res.uncork();
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    // Nothing held is flushed here: `close` ends the response, which writes it all; a dropped or gone reader's
    // connection is destroyed with it.
    if (flush) clearImmediate(flush);
    resolveDone();
  };
  res.on("close", finish);
  // A write racing the reader's disconnect fails on the response; unheard, that error would be thrown out of the
  // event loop. The stream is over either way.
  res.on("error", finish);
  let dropped = false;
  /**
   * Writes a frame, unless what the reader has not taken yet already exceeds the bound: then the reader is
   * dropped. Checking the backlog before the write lets one large frame (a big tool result) through to a reader
   * that keeps up, and bounds the memory a slow one costs at the bound plus one frame.
   */
  const write = (frame: string): boolean => {
    const buffered = res.writableLength;
    if (buffered <= maxBufferedBytes) {
      // The frames of one turn leave in one write: a router whose calls end by the dozen in a turn sends a
      // watcher one chunk for all their events, not a system call for each (Node's own corking lasts a tick).
      if (!flush) {
        res.cork();
        flush = setImmediate(uncork);
      }
      res.write(frame);
      return true;
    }
    dropped = true;
    finish();
    res.destroy();
    try {
      options.onDropped?.(buffered);
    } catch {
      // An observer's failure must not reach the writer.
    }
    return false;
  };
  const stream: SseStream = {
    send(data, o = {}) {
      if (closed) return false;
      let frame = "";
      if (o.event) frame += `event: ${o.event}\n`;
      if (o.id) frame += `id: ${o.id}\n`;
      // JSON (what every stream sends) has no line breaks: one data line, without splitting.
      if (!data.includes("\n")) frame += `data: ${data}\n`;
      else for (const line of data.split("\n")) frame += `data: ${line}\n`;
      return write(`${frame}\n`);
    },
    comment(text) {
      if (!closed) write(`: ${text}\n\n`);
    },
    close() {
      if (closed) return;
      finish();
      res.end();
    },
    get closed() {
      return closed;
    },
    get dropped() {
      return dropped;
    },
    done,
  };
  return stream;
}
