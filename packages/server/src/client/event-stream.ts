import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One Server-Sent Event as it arrived: its name (`message` when the server named none), id and data. */
export interface ServerSentEvent {
  event: string;
  /** The event's id; the last one seen is sent back as `Last-Event-ID` on a reconnect. */
  id: string | undefined;
  data: string;
}

/** Opens the stream's HTTP response; `lastEventId` is set on a reconnect. */
export type OpenEventStream = (request: {
  lastEventId: string | undefined;
  signal: AbortSignal;
}) => Promise<Response>;

/** What {@link readEventStream} does when the connection drops. */
export interface ReconnectOptions {
  /** Reconnects in a row, without an event received between them, before it gives up. Default: unlimited. */
  maxAttempts?: number;
  /** Wait before the first reconnect, in milliseconds, unless the server's `retry:` field says otherwise. Default 1 000. */
  delayMs?: number;
  /** Longest wait between reconnects (the wait doubles after each failed attempt). Default 30 000. */
  maxDelayMs?: number;
}

/** Options for {@link readEventStream}. */
export interface ReadEventStreamOptions {
  /** Ends the stream (the iteration returns) when it aborts. */
  signal?: AbortSignal | undefined;
  /** Resume after this event id (sent as `Last-Event-ID` on the first connection too). */
  lastEventId?: string | undefined;
  /**
   * Reconnect when the connection drops or the server ends the stream; `false` (the default) ends instead. Only a
   * stream that was open once is reconnected: a first connection that fails throws at once.
   */
  reconnect?: ReconnectOptions | boolean | undefined;
  /** Told before each reconnect, with the error that ended the connection (if any) and the wait. */
  onReconnect?:
    | ((info: { attempt: number; delayMs: number; lastEventId: string | undefined; error?: unknown }) => void)
    | undefined;
  /** Turns a response that is not a stream (an error status) into the error thrown; such a response is never retried. */
  failure(response: Response): Promise<Error>;
}

/**
 * Reads a Server-Sent Events stream with a well-kept parser (`eventsource-parser`: `\n`, `\r\n` and `\r` line
 * ends, multi-line data, ids, comments, `retry:`), yielding each event as it arrives. With `reconnect`, a
 * dropped connection or an ended stream is opened again after a wait, with `Last-Event-ID` set to the last id
 * seen, so a server that resumes from it loses and repeats nothing.
 *
 * @throws what `failure` returns for a non-2xx response; the network error once `maxAttempts` is spent.
 */
export async function* readEventStream(
  open: OpenEventStream,
  options: ReadEventStreamOptions,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reconnect =
    options.reconnect === true
      ? {}
      : options.reconnect === false || options.reconnect === undefined
        ? undefined
        : options.reconnect;
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) return;
  options.signal?.addEventListener("abort", stop, { once: true });
  let lastEventId = options.lastEventId;
  let retryMs = reconnect?.delayMs ?? 1_000;
  let attempt = 0;
  let opened = false;
  try {
    for (;;) {
      let failure: unknown;
      try {
        const response = await open({ lastEventId, signal: controller.signal });
        if (!response.ok || !response.body) throw new StreamRefused(await options.failure(response));
        opened = true;
        for await (const event of parseBody(response.body, (ms) => {
          retryMs = ms;
        })) {
          attempt = 0;
          if (event.id !== undefined) lastEventId = event.id;
          yield event;
        }
      } catch (error) {
        if (error instanceof StreamRefused) throw error.reason;
        if (controller.signal.aborted) return;
        failure = error;
      }
      if (controller.signal.aborted) return;
      if (!reconnect || !opened) {
        if (failure !== undefined) throw failure;
        return;
      }
      attempt++;
      if (reconnect.maxAttempts !== undefined && attempt > reconnect.maxAttempts) {
        throw failure ?? new Error("The event stream kept ending");
      }
      const delayMs = Math.min(retryMs * 2 ** (attempt - 1), reconnect.maxDelayMs ?? 30_000);
      options.onReconnect?.({
        attempt,
        delayMs,
        lastEventId,
        ...(failure !== undefined ? { error: failure } : {}),
      });
      await sleep(delayMs, controller.signal);
      if (controller.signal.aborted) return;
    }
  } finally {
    options.signal?.removeEventListener("abort", stop);
    controller.abort();
  }
}

/** A refusal by the server: thrown through the reconnect loop, never retried. */
class StreamRefused extends Error {
  constructor(readonly reason: Error) {
    super(reason.message);
  }
}

/** The events of one response body, parsed as they arrive. */
async function* parseBody(
  body: ReadableStream<Uint8Array>,
  onRetry: (ms: number) => void,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const ready: ServerSentEvent[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) =>
      ready.push({ event: message.event ?? "message", id: message.id, data: message.data }),
    onRetry,
  });
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (ready.length > 0) yield ready.shift() as ServerSentEvent;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
