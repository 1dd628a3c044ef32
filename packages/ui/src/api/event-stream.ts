import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One Server-Sent Event: its name (`message` when the server named none), its id and its data. */
export interface ServerSentEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * The events of an SSE response body, each yielded as soon as it has arrived whole. The browser's `EventSource`
 * cannot send an `Authorization` header, and the token must never travel in a URL, so streams are read from a
 * `fetch` response instead.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const ready: ServerSentEvent[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) =>
      ready.push({ event: message.event ?? "message", id: message.id, data: message.data }),
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (ready.length > 0) yield ready.shift() as ServerSentEvent;
    }
  } finally {
    // Stops the download when the consumer stops early (a page left, a filter changed).
    await reader.cancel().catch(() => undefined);
  }
}
