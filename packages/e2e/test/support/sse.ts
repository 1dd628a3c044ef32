import { createParser } from "eventsource-parser";

/** One Server-Sent Event: its name (`message` when the server named none), its id if it had one, and its data. */
export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

function parserInto(events: SseEvent[]) {
  return createParser({
    onEvent: ({ event, id, data }) => {
      events.push(
        id === undefined ? { event: event ?? "message", data } : { event: event ?? "message", id, data },
      );
    },
  });
}

/** Every event of a whole `text/event-stream` body, in order (`eventsource-parser` reads it). */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  parserInto(events).feed(text);
  return events;
}

/** The events of a `text/event-stream` body as they arrive; stops when the body ends or the caller does. */
export async function* streamSseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const ready: SseEvent[] = [];
  const parser = parserInto(ready);
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
}
